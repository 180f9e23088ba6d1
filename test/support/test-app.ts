import 'reflect-metadata';
import type { DynamicModule, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/bootstrap/configure-app';
import { DatabaseConnector } from '../../src/infra/database/database.connector';
import { LOG_DESTINATION } from '../../src/infra/logging/logging.module';
import { LogCapture } from './log-capture';
import { TestDatabase } from './test-database';
import { ADMIN_TOKEN, newQueuePrefix, testAppEnv, TEST_REDIS_URL } from './test-env';

export { ADMIN_TOKEN, AUTH_TOKEN_SECRET, newQueuePrefix } from './test-env';

export interface StartOptions {
  /** A database to share with other apps (replicas); by default the app gets a fresh one. */
  database?: TestDatabase;
  /** Likewise for the Redis key prefix. */
  queuePrefix?: string;
  /** Environment variables for this app, over the test defaults (undefined unsets one). */
  env?: Record<string, string | undefined>;
  /** Extra modules, such as test fixtures. */
  imports?: Array<Type | DynamicModule>;
}

/**
 * nestjs-pino keeps one root logger per process, bound to the first app's destination: every app
 * that a test file starts writes here.
 */
export const logs = new LogCapture();

/** The whole app, in this process, over real Postgres and Redis, listening on a free port. */
export class TestApp {
  private constructor(
    readonly app: NestExpressApplication,
    readonly database: TestDatabase,
    readonly queuePrefix: string,
    private readonly ownsDatabase: boolean,
  ) {}

  static async start(options: StartOptions = {}): Promise<TestApp> {
    const database = options.database ?? (await TestDatabase.create());
    const queuePrefix = options.queuePrefix ?? newQueuePrefix();
    const app = await withEnv(
      {
        DATABASE_URL: database.url,
        DATABASE_POOL_SIZE: '8',
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: queuePrefix,
        PORT: '0',
        LOG_LEVEL: 'info',
        ...testAppEnv(),
        ADMIN_TOKEN,
        FAULT_INJECTION: 'true',
        ...options.env,
      },
      async () => {
        const moduleRef = await Test.createTestingModule({ imports: [AppModule, ...(options.imports ?? [])] })
          .overrideProvider(LOG_DESTINATION)
          .useValue(logs)
          .compile();
        const nest = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false });
        configureApp(nest);
        await nest.listen(0, '127.0.0.1');
        return nest;
      },
    );
    return new TestApp(app, database, queuePrefix, !options.database);
  }

  get url(): string {
    const { port } = this.app.getHttpServer().address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** supertest, bound to this app. */
  http() {
    return request(this.app.getHttpServer());
  }

  get<T>(token: abstract new (...args: never[]) => T): T {
    return this.app.get(token as never, { strict: false });
  }

  /** Resolves when the database is connected and migrated. */
  ready(): Promise<void> {
    return this.get(DatabaseConnector).ready;
  }

  async stop(): Promise<void> {
    await this.app.close();
    if (this.ownsDatabase) await this.database.drop();
  }
}

/** Runs `work` with these variables set, then puts the environment back as it was. */
export async function withEnv<T>(vars: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.entries(vars).forEach(([name, value]) =>
    value === undefined ? delete process.env[name] : (process.env[name] = value),
  );
  try {
    return await work();
  } finally {
    Object.entries(saved).forEach(([name, value]) =>
      value === undefined ? delete process.env[name] : (process.env[name] = value),
    );
  }
}
