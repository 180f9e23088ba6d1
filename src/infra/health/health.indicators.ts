import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import type IORedis from 'ioredis';
import { once } from 'node:events';
import { DataSource } from 'typeorm';
import { DatabaseConnector } from '../database/database.connector';
import { RedisConnections } from '../redis/redis.connections';

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
  private readonly client: IORedis;

  constructor(
    private readonly indicators: HealthIndicatorService,
    redis: RedisConnections,
  ) {
    this.client = redis.open('health', 'command');
  }

  check() {
    return this.indicators
      .check('redis')
      .attempt(async () => {
        // Just after the app starts, its connection may still be on its way: wait for it (bounded).
        if (this.client.status === 'connecting' || this.client.status === 'connect') await once(this.client, 'ready');
        await this.client.ping();
      })
      .withTimeout(CHECK_TIMEOUT_MS);
  }
}
