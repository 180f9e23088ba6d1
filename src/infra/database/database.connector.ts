import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { databaseConfig, DatabaseConfig } from '../../config/database.config';
import { describeError } from '../errors';
import { createDatabase, isMissingDatabase } from './create-database';
import { runMigrations } from './run-migrations';

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

  constructor(
    private readonly dataSource: DataSource,
    @Inject(databaseConfig.KEY) private readonly config: DatabaseConfig,
  ) {}

  get connected(): boolean {
    return this.isReady;
  }

  /** The first attempt is awaited, so that a healthy start is ready when the app listens. */
  async onApplicationBootstrap(): Promise<void> {
    if (!(await this.attempt(1))) this.retryLater(2);
  }

  onApplicationShutdown(): void {
    this.stopping = true;
    clearTimeout(this.retryTimer);
  }

  private retryLater(attempt: number): void {
    if (this.stopping) return;
    this.retryTimer = setTimeout(() => {
      void this.attempt(attempt).then((done) => done || this.retryLater(attempt + 1));
    }, this.config.retryMs);
  }

  private async attempt(attempt: number): Promise<boolean> {
    try {
      if (!this.dataSource.isInitialized) await this.dataSource.initialize();
      if (this.config.migrationsRun) {
        const applied = await runMigrations(this.dataSource);
        if (applied.length > 0) this.logger.log(`Applied ${applied.length} migration(s)`);
      }
      this.isReady = true;
      this.resolveReady();
      if (attempt > 1) this.logger.log(`Postgres is answering after ${attempt} attempts`);
      return true;
    } catch (error) {
      if (isMissingDatabase(error)) return this.createMissingDatabase(attempt);
      this.logger.error(
        `Postgres is not ready (${describeError(error)}); attempt ${attempt}, retrying in ${this.config.retryMs} ms`,
      );
      return false;
    }
  }

  private async createMissingDatabase(attempt: number): Promise<boolean> {
    try {
      this.logger.warn(`Database ${await createDatabase(this.config.url)} did not exist: created it`);
      return await this.attempt(attempt);
    } catch (error) {
      this.logger.error(`The database does not exist and could not be created: ${describeError(error)}`);
      return false;
    }
  }
}
