import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import IORedis, { RedisOptions } from 'ioredis';
import { redisConfig, RedisConfig } from '../../config/redis.config';

/** How a connection is used decides how it behaves while Redis is away. */
export type RedisConnectionRole =
  /** Requests fail fast (health checks, producers on a request path). */
  | 'command'
  /** Blocking consumers: BullMQ requires unlimited retries per request. */
  | 'blocking';

/**
 * Hands out ioredis connections to REDIS_URL and closes every one of them when the app shuts down.
 * Every connection reconnects by itself with a capped backoff, and says so in the log once per outage.
 */
@Injectable()
export class RedisConnections implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  private readonly clients = new Set<IORedis>();

  constructor(@Inject(redisConfig.KEY) private readonly config: RedisConfig) {}

  open(name: string, role: RedisConnectionRole): IORedis {
    const options: RedisOptions = {
      connectionName: name,
      lazyConnect: false,
      retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 10), 2_000),
      ...(role === 'command'
        ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 }
        : { maxRetriesPerRequest: null }),
    };
    const client = new IORedis(this.config.url, options);
    let down = false;
    client.on('error', (error: Error) => {
      if (!down) this.logger.warn(`Redis connection "${name}" lost: ${error.message}; reconnecting`);
      down = true;
    });
    client.on('ready', () => {
      if (down) this.logger.log(`Redis connection "${name}" is back`);
      down = false;
    });
    this.clients.add(client);
    client.once('end', () => this.clients.delete(client));
    return client;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.clients].map((client) => client.quit().catch(() => client.disconnect())));
  }
}
