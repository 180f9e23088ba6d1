import 'reflect-metadata';
import { Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { flushCompileCache } from 'node:module';
import { AppModule } from '../../../src/app.module';
import { configureApp } from '../../../src/bootstrap/configure-app';

/**
 * The app with an exercise's modules (the learner's answer, the exercise's fixture), as a process
 * of its own: for exercises whose story kills it. EXERCISE_MODULES lists them as `file#Export`,
 * comma-separated. Started by ExerciseProcess.
 */
async function main(): Promise<void> {
  const modules = (process.env.EXERCISE_MODULES ?? '')
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const [file, name] = entry.split('#');
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the exercise names them at run time
      const exported = (require(file) as Record<string, Type | undefined>)[name];
      if (!exported) throw new Error(`${file} exports no ${name}`);
      return exported;
    });

  @Module({ imports: [AppModule, ...modules] })
  class AppWithExercise {}

  const app = await NestFactory.create<NestExpressApplication>(AppWithExercise, {
    bodyParser: false,
    bufferLogs: true,
  });
  configureApp(app);
  await app.listen(Number(process.env.PORT));
  // The exercises kill it rather than stop it: the bytecode of this boot is kept for the next one now.
  flushCompileCache();
}

void main();
