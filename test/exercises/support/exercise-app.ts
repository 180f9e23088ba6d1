import path from 'node:path';
import { AppProcess, freePort } from '../../support/app-process';
import { compiledPath, compileTree, NODE_COMPILE_CACHE_DIR } from '../../support/compiled';
import { eventually } from '../../support/eventually';
import { ProcessClient } from '../../support/process-client';
import { QUIET_ENV } from '../../support/quiet';
import { TestDatabase } from '../../support/test-database';
import { ADMIN_TOKEN, newQueuePrefix } from '../../support/test-env';

/** A Nest module in a file: `{ file: implementationPath(__dirname), name: 'WalletModule' }`. */
export interface ModuleFile {
  file: string;
  name: string;
}

export interface ExerciseProcessOptions {
  /** The modules to load besides the app: the learner's answer, the exercise's fixture. */
  modules: ModuleFile[];
  /** Over the defaults below (undefined unsets one). */
  env?: Record<string, string | undefined>;
}

let compiled = false;

/**
 * The command of the exercise's app: exercise-main compiled to JavaScript (test/support/compiled.ts,
 * which compiles again only what changed, such as the answer), with Node's bytecode cache, rather
 * than the TypeScript through a require hook.
 */
function main(): string[] {
  if (!compiled) compileTree();
  compiled = true;
  return [process.execPath, '--enable-source-maps', compiledPath(path.join(__dirname, 'exercise-main.ts'))];
}

/**
 * What the exercises run the app with: a relay that wakes at once and every 100 ms, a sweep that
 * redelivers within a second (QUIET_ENV), retries 50 ms apart, and fault injection on.
 */
export const EXERCISE_ENV: Record<string, string> = {
  ...QUIET_ENV,
  OUTBOX_RELAY_INTERVAL_MS: '100',
  OUTBOX_BACKOFF_MS: '50',
  FAULT_INJECTION: 'true',
};

/**
 * The app with the learner's module, as a child process that the exercise can SIGKILL and start
 * again on the same database and Redis key prefix: what a crash and a restart do to in-memory
 * state (a `Set` of handled ids), and what they cannot do to Postgres.
 */
export class ExerciseProcess {
  private current?: AppProcess;
  readonly client: ProcessClient;
  private constructor(
    readonly database: TestDatabase,
    readonly queuePrefix: string,
    private readonly options: ExerciseProcessOptions,
    private readonly port: number,
  ) {
    this.client = new ProcessClient(`http://127.0.0.1:${port}`);
  }

  static async start(options: ExerciseProcessOptions): Promise<ExerciseProcess> {
    const started = new ExerciseProcess(await TestDatabase.create(), newQueuePrefix(), options, await freePort());
    await started.boot();
    return started;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Its output so far (the last lines), for a failure message. */
  tail(lines = 30): string {
    return this.current?.tail(lines) ?? '(not running)';
  }

  /** Kills it as `kill -9` would: no shutdown hook, nothing in memory survives. */
  async kill(): Promise<void> {
    await this.current?.stop();
    this.current = undefined;
  }

  /** Waits until the process has died of itself (an injected `crash`), and forgets it. */
  async died(timeoutMs = 20_000): Promise<void> {
    await this.current?.exitCode(timeoutMs);
    this.current = undefined;
  }

  /** Starts it again (after a kill or a crash) on the same database and queues. */
  async restart(): Promise<void> {
    await this.kill();
    await this.boot();
  }

  async stop(): Promise<void> {
    await this.kill();
    await this.database.drop();
  }

  private async boot(): Promise<void> {
    const env = Object.fromEntries(
      Object.entries({
        ...EXERCISE_ENV,
        DATABASE_URL: this.database.url,
        QUEUE_PREFIX: this.queuePrefix,
        ADMIN_TOKEN,
        PORT: String(this.port),
        EXERCISE_MODULES: this.options.modules.map((m) => `${compiledPath(m.file)}#${m.name}`).join(','),
        NODE_COMPILE_CACHE: NODE_COMPILE_CACHE_DIR,
        // A module that loads the answer itself (a wiring) must load the one the spec runs against.
        EXERCISE_TARGET: process.env.EXERCISE_TARGET,
        EXERCISE_TARGETS: process.env.EXERCISE_TARGETS,
        ...this.options.env,
      }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const child = await AppProcess.start(env, main());
    this.current = child;
    const exited = child.exitCode(70_000).then(
      (code) => {
        throw new Error(`the exercise app exited (code ${code}) while starting:\n${child.tail()}`);
      },
      () => undefined,
    );
    await Promise.race([
      exited,
      eventually(
        async () => {
          const { status } = await child.get('/health');
          if (status !== 200) throw new Error(`health answered ${status}`);
        },
        { timeoutMs: 60_000, intervalMs: 100, what: 'the exercise app to start' },
      ),
    ]);
  }
}
