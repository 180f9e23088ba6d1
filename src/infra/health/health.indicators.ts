import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Cluster } from 'ioredis';
import { once } from 'node:events';
import { DataSource } from 'typeorm';
import { DatabaseConnector } from '../database/database.connector';
import { type RedisClient, RedisConnections } from '../redis/redis.connections';

const CHECK_TIMEOUT_MS = 1_500;

@Injectable()
export class PostgresHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly connector: DatabaseConnector,
    private readonly dataSource: DataSource,
  ) {}

  check() {
    return this.indicators
      .check('postgres')
      .attempt(async () => {
        if (!this.connector.connected) throw new Error('not connected yet (unreachable, or migrations pending)');
        await this.dataSource.query('SELECT 1');
      })
      .withTimeout(CHECK_TIMEOUT_MS);
  }
}

@Injectable()
export class RedisHealthIndicator {
  private readonly client: RedisClient;
  /** Why the connection last failed, while it is not back: what the operator needs (a refused password, an untrusted certificate). */
  private connectionError?: string;

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly redis: RedisConnections,
  ) {
    this.client = redis.open('health', 'command');
    this.client.on('error', (error: Error) => (this.connectionError = error.message));
    this.client.on('ready', () => (this.connectionError = undefined));
  }

  /** Redis answers: the server, the Sentinel group's master, or every master of the Cluster. */
  check() {
    return this.indicators
      .check('redis')
      .attempt(() =>
        this.answers().catch((error: Error) => {
          throw this.connectionError && this.client.status !== 'ready'
            ? new Error(`not connected: ${this.connectionError}`)
            : error;
        }),
      )
      .withTimeout(CHECK_TIMEOUT_MS);
  }

  private async answers() {
    // Just after the app starts, its connection may still be on its way: wait for it (bounded).
    if (this.client.status === 'connecting' || this.client.status === 'connect') await once(this.client, 'ready');
    if (this.client instanceof Cluster) {
      const masters = this.client.nodes('master');
      if (masters.length === 0) throw new Error('the cluster has no master known to this client');
      await Promise.all(masters.map((node) => node.ping()));
      const info = await this.client.cluster('INFO');
      if (!/cluster_state:ok/.test(info))
        throw new Error(`cluster state is not ok (${/cluster_state:(\w+)/.exec(info)?.[1]})`);
    } else {
      await this.client.ping();
    }
    return { topology: this.redis.topology };
  }

  /** Each queue's producer and worker can reach the queue's keys (a Redis that answers PING may still refuse them). */
  queues() {
    const indicator = this.indicators.check('queues');
    return this.redis.pulse.down().then((down) =>
      down.length === 0
        ? indicator.up()
        : indicator.down({
            message: down.map(({ part, error }) => `${part}: ${error}`).join('; '),
            parts: Object.fromEntries(down.map(({ part, error }) => [part, error])),
          }),
    );
  }
}
