import { type ConfigType, registerAs } from '@nestjs/config';
import { IsString, MinLength } from 'class-validator';
import path from 'node:path';
import { readEnv } from '../config/env';

class OperationsEnv {
  /** Where `npm run compare` writes its figures: the project's bench/results/ by default. */
  @IsString() @MinLength(1) COMPARE_RESULTS_DIR: string = path.resolve(__dirname, '..', '..', 'bench', 'results');
}

export const operationsConfig = registerAs('operations', () => {
  const env = readEnv(OperationsEnv);
  return { compareResultsDir: env.COMPARE_RESULTS_DIR };
});
export type OperationsConfig = ConfigType<typeof operationsConfig>;
