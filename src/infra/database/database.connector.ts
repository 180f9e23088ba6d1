import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { databaseConfig, DatabaseConfig } from '../../config/database.config';
import { describeError } from '../errors';
import { createDatabase, isMissingDatabase } from './create-database';
import { migrationDataSourceOptions } from './data-source.options';
import { runMigrations } from './run-migrations';

/** PgBouncer's answer to a startup parameter it was not told to accept (or to ignore). */
const REFUSED_PARAMETER = /unsupported startup parameter: (\S+)/;

/**
 * Connects to Postgres and migrates it without holding up the start of the app: when Postgres does
 * not answer, the app still serves /health (saying that Postgres is down) and keeps retrying,
 * with a log line per attempt, until it does. Work that needs the database awaits `ready`.
 */
@Injectable()
export class DatabaseConnector implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  private resolveReady!: () => void;
  readonly ready: Promise<void> = new Promise((resolve) => (this.resolveReady = resolve));
  private isReady = false;
  private stopping = false;
  private retryTimer?: NodeJS.Timeout;
  /** What the attempt under way is doing, for the start's warning when it takes long. */
  private phase = 'connecting';
  /** Set when DATABASE_URL leads somewhere the app cannot run as configured: retrying will not help. */
  private misconfigured?: string;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(databaseConfig.KEY) private readonly config: DatabaseConfig,
  ) {}

  get connected(): boolean {
    return this.isReady;
  }

  /**
   * The first attempt is awaited, so that a healthy start is ready when the app listens; but not
   * longer than DATABASE_START_WAIT_MS: an attempt that waits (for the migrations' lock, held by a
   * replica migrating; for a migration's own lock) goes on while the app listens and /health says
   * that Postgres is not ready.
   */
  async onApplicationBootstrap(): Promise<void> {
    const first = this.attempt(1).then((done) => done || this.retryLater(2));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.config.startWaitMs)));
    const answered = await Promise.race([first.then(() => true), waited]);
    clearTimeout(timer);
    if (!answered) {
      this.logger.warn(
        `Postgres has not answered the start within ${this.config.startWaitMs} ms (${this.phase}): listening anyway, with /health saying so until it does`,
      );
    }
  }

  onApplicationShutdown(): void {
    this.stopping = true;
    clearTimeout(this.retryTimer);
  }

  private retryLater(attempt: number): void {
    if (this.stopping || this.misconfigured) return;
    this.retryTimer = setTimeout(() => {
      void this.attempt(attempt).then((done) => done || this.retryLater(attempt + 1));
    }, this.config.retryMs);
  }

  private async attempt(attempt: number): Promise<boolean> {
    try {
      this.phase = 'connecting';
      if (!this.dataSource.isInitialized) await this.dataSource.initialize();
      this.phase = 'checking the bounds of its sessions';
      this.misconfigured = await this.boundsDropped();
      if (this.misconfigured) {
        this.logger.error(this.misconfigured);
        return false;
      }
      if (this.config.migrationsRun) {
        this.phase = "waiting for the migrations' lock";
        const applied = await this.migrate();
        if (applied.length > 0) this.logger.log(`Applied ${applied.length} migration(s)`);
      }
      this.isReady = true;
      this.resolveReady();
      if (attempt > 1) this.logger.log(`Postgres is answering after ${attempt} attempts`);
      return true;
    } catch (error) {
      if (isMissingDatabase(error)) return this.createMissingDatabase(attempt);
      const refused = REFUSED_PARAMETER.exec(describeError(error))?.[1];
      if (refused && this.config.pooler === 'none') {
        this.misconfigured = `DATABASE_URL leads to a pooler, which refuses the startup parameter ${refused} that bounds the app's statements: set DATABASE_POOLER to its pool mode (and DATABASE_DIRECT_URL to Postgres itself for transaction mode; ADR 0072)`;
        this.logger.error(this.misconfigured);
        return false;
      }
      this.logger.error(
        `Postgres is not ready (${describeError(error)}); attempt ${attempt}, retrying in ${this.config.retryMs} ms`,
      );
      return false;
    }
  }

  /**
   * Whether the bounds sent with each connection's startup message (DATABASE_POOLER=none) are in
   * force: a pooler told to ignore those parameters drops them, and its connections look like
   * Postgres' own. Says what to set, or undefined when they hold (or there are none).
   */
  private async boundsDropped(): Promise<string | undefined> {
    if (this.config.pooler !== 'none') return undefined;
    const expected: Record<string, number> = {
      lock_timeout: this.config.lockTimeoutMs,
      statement_timeout: this.config.statementTimeoutMs,
    };
    const rows = await this.dataSource.query<Array<{ name: string; setting: string }>>(
      `SELECT name, setting FROM pg_settings WHERE name IN ('lock_timeout', 'statement_timeout')`,
    );
    const dropped = rows.filter(({ name, setting }) => expected[name] > 0 && Number(setting) !== expected[name]);
    if (dropped.length === 0) return undefined;
    const what = dropped.map(({ name, setting }) => `${name} is ${setting} ms, not ${expected[name]}`).join(', ');
    return `DATABASE_URL dropped the bounds sent with each connection (${what}): it leads to a pooler; set DATABASE_POOLER to its pool mode (and DATABASE_DIRECT_URL to Postgres itself for transaction mode; ADR 0072)`;
  }

  /** On the app's pool straight to Postgres; past a pooler, on a connection of their own to Postgres itself. */
  private async migrate() {
    const migrating = () => (this.phase = 'migrating');
    if (this.config.pooler === 'none' && this.config.directUrl === this.config.url) {
      return runMigrations(this.dataSource, migrating);
    }
    const direct = new DataSource(migrationDataSourceOptions(this.config));
    await direct.initialize();
    try {
      return await runMigrations(direct, migrating);
    } finally {
      await direct.destroy();
    }
  }

  private async createMissingDatabase(attempt: number): Promise<boolean> {
    try {
      this.logger.warn(`Database ${await createDatabase(this.config.directUrl)} did not exist: created it`);
      return await this.attempt(attempt);
    } catch (error) {
      this.logger.error(`The database does not exist and could not be created: ${describeError(error)}`);
      return false;
    }
  }
}
