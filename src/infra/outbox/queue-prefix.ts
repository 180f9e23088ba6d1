import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { databaseConfig, type DatabaseConfig } from '../../config/database.config';
import { redisConfig, type RedisConfig } from '../../config/redis.config';
import { DatabaseConnector } from '../database/database.connector';
import { describeError } from '../errors';
import { queuePrefixOf } from './queue-prefix-of';

export { queuePrefixOf };

/**
 * The deployment's name in every BullMQ key. QUEUE_PREFIX when set; otherwise derived from the
 * database (its name and the id its outbox was created with), so that two deployments sharing a
 * Redis with the default settings never take each other's jobs.
 *
 * Each queue's keys carry a hash tag of their own, `{<deployment>:<queue>}` (see `of`): BullMQ's
 * scripts touch several keys of one queue at once, so these must share a Redis Cluster slot, while
 * different queues hash to different slots and so spread over a cluster's masters.
 */
@Injectable()
export class QueuePrefix implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('QueuePrefix');
  private current?: string;
  private resolveKnown!: (prefix: string) => void;
  /** Resolves once the prefix is known (at once when configured, after Postgres answers otherwise). */
  readonly known: Promise<string> = new Promise((resolve) => (this.resolveKnown = resolve));
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly connector: DatabaseConnector,
    @Inject(redisConfig.KEY) private readonly redis: RedisConfig,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
  ) {
    if (redis.queuePrefix) this.settle(redis.queuePrefix);
  }

  /** The deployment's part of the prefix; throws while it is not known yet (the database has not answered). */
  get value(): string {
    if (this.current === undefined) throw new Error('The queue prefix is not known before the database answers');
    return this.current;
  }

  /** The BullMQ prefix of one queue: its own hash tag. Throws while the deployment's part is not known. */
  of(queue: string): string {
    return queuePrefixOf(this.value, queue);
  }

  onApplicationBootstrap(): void {
    if (this.current === undefined) void this.connector.ready.then(() => this.derive());
  }

  onApplicationShutdown(): void {
    this.stopped = true;
  }

  private async derive(): Promise<void> {
    while (!this.stopped) {
      try {
        const [row] = await this.dataSource.query<Array<{ name: string; id: string }>>(
          `SELECT current_database() AS name, id FROM outbox.deployment`,
        );
        this.settle(`${row.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}:${row.id.slice(0, 8)}`);
        this.logger.log(`Queue prefix ${this.value}, from the database (QUEUE_PREFIX is not set)`);
        return;
      } catch (error) {
        this.logger.warn(`Cannot read the deployment id yet: ${describeError(error)}`);
        await sleep(this.database.retryMs);
      }
    }
  }

  private settle(prefix: string): void {
    this.current = prefix;
    this.resolveKnown(prefix);
  }
}
