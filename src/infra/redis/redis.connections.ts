import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import IORedis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import { redisConfig, RedisConfig } from '../../config/redis.config';
import { RedisPulse } from './redis.pulse';

/** How a connection is used decides how it behaves while Redis is away. */
export type RedisConnectionRole =
  /** Requests fail fast (health checks, producers on a request path). */
  | 'command'
  /** Blocking consumers: BullMQ requires unlimited retries per request. */
  | 'blocking';

/** A connection to the app's Redis, whichever its topology: one server, a Sentinel group's master, or a Cluster. */
export type RedisClient = IORedis | Cluster;

const backoff = (times: number) => Math.min(100 * 2 ** Math.min(times, 10), 2_000);

/**
 * Hands out connections to the configured Redis (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS,
 * with REDIS_USERNAME/PASSWORD and TLS) and closes every one of them when the app shuts down. Every
 * connection reconnects by itself with a capped backoff, and says so in the log once per outage.
 * Every part of the app that speaks to Redis gets its connection here.
 */
@Injectable()
export class RedisConnections implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  private readonly clients = new Set<RedisClient>();
  /** Whether the queues' producers and workers can reach their keys (see /health). */
  readonly pulse = new RedisPulse(this);

  constructor(@Inject(redisConfig.KEY) private readonly config: RedisConfig) {}

  /** One server, a Sentinel group or a Cluster, as configured. */
  get topology(): RedisConfig['topology']['kind'] {
    return this.config.topology.kind;
  }

  open(name: string, role: RedisConnectionRole): RedisClient {
    const client = this.create(name, role);
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

  private create(name: string, role: RedisConnectionRole): RedisClient {
    const { topology, username, password, tls } = this.config;
    const perRequest: RedisOptions =
      role === 'command'
        ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 }
        : { maxRetriesPerRequest: null };
    const node: RedisOptions = {
      connectionName: name,
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      ...(tls ? { tls } : {}),
    };
    switch (topology.kind) {
      case 'server':
        return new IORedis(topology.url, { ...node, lazyConnect: false, retryStrategy: backoff, ...perRequest });
      case 'sentinel':
        return new IORedis({
          ...node,
          ...perRequest,
          sentinels: topology.sentinels,
          name: topology.master,
          sentinelUsername: this.config.sentinelUsername,
          sentinelPassword: this.config.sentinelPassword,
          ...(tls ? { enableTLSForSentinelMode: true, sentinelTLS: tls } : {}),
          // No failoverDetector: a +switch-master that reaches a connection while it asks the
          // sentinels for the master ends it for good ('Connection is closed', status end; every
          // connection of the app at once after a master was killed under load). A failover closes
          // the clients of the old master, and a connection still on a demoted one reconnects at
          // its first READONLY.
          reconnectOnError: (error: Error) => (error.message.startsWith('READONLY') ? 2 : false),
          retryStrategy: backoff,
          sentinelRetryStrategy: backoff,
        });
      case 'cluster': {
        // The cluster, not each node's connection, retries: a node that died is dropped at the next slot refresh.
        const options: ClusterOptions = {
          redisOptions: { ...node, connectTimeout: 2_000, maxRetriesPerRequest: perRequest.maxRetriesPerRequest },
          clusterRetryStrategy: backoff,
          enableOfflineQueue: role !== 'command',
          enableReadyCheck: true,
          slotsRefreshTimeout: 2_000,
          retryDelayOnFailover: 200,
          retryDelayOnClusterDown: 200,
        };
        return new Cluster(topology.nodes, options);
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.clients].map((client) => client.quit().catch(() => client.disconnect())));
  }
}
