import { Injectable, Logger } from '@nestjs/common';
import { type ThrottlerStorage, ThrottlerStorageService } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { describeError } from '../errors';
import { QueuePrefix } from '../outbox/queue-prefix';
import { RedisConnections, type RedisClient } from '../redis/redis.connections';

/**
 * One hit in a bucket's window: the count goes up, and the first hit of a window starts its expiry.
 * Answers the count and the milliseconds left in the window. One key, so it runs on any Redis
 * Cluster node that holds it.
 */
const HIT = `
local hits = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return { hits, left }
`;

/** How long a hit may wait for Redis before this process counts it itself. */
export const SHARED_COUNT_TIMEOUT_MS = 500;

type HitClient = RedisClient & { rateLimitHit(key: string, windowMs: number): Promise<[number, number]> };

/**
 * The rate limits' counts, kept in the deployment's Redis so that every replica counts against
 * the same limit (ADR 0073). A bucket is one key, `{<deployment>:rate-limit:<action>:<client hash>}`:
 * its own hash tag, so buckets spread over a Redis Cluster's slots, and within the deployment's
 * ACL key pattern (`~{<deployment>:*`); the client's address is hashed,
 * so Redis holds no address. A fixed window: the first hit starts it, and the bucket expires with it.
 *
 * When Redis does not answer (down, or slower than SHARED_COUNT_TIMEOUT_MS), or before the
 * deployment's prefix is known, the hit is counted in this process's memory instead: the limits
 * hold per process, as they did before they were shared, rather than failing every limited call
 * or turning the limits off.
 */
@Injectable()
export class SharedRateLimitStore implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimits');
  private readonly local = new ThrottlerStorageService();
  private client?: HitClient;
  private countingLocally = false;
  /** Until the first connection attempt succeeds or fails. */
  private connecting = true;

  constructor(
    private readonly connections: RedisConnections,
    private readonly prefix: QueuePrefix,
  ) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    try {
      const [hits, leftMs] = await this.hit(key, ttl);
      if (this.countingLocally) this.logger.log('Rate limits are counted in Redis again, for the deployment');
      this.countingLocally = false;
      const seconds = Math.max(1, Math.ceil(leftMs / 1000));
      const isBlocked = hits > limit;
      return { totalHits: hits, timeToExpire: seconds, isBlocked, timeToBlockExpire: isBlocked ? seconds : 0 };
    } catch (error) {
      if (!this.countingLocally) {
        this.logger.warn(
          `Rate limits are counted by this process alone while Redis does not answer: ${describeError(error)}`,
        );
      }
      this.countingLocally = true;
      return this.local.increment(key, ttl, limit, blockDuration, throttlerName);
    }
  }

  private async hit(key: string, windowMs: number): Promise<[number, number]> {
    const bucket = `{${this.prefix.value}:rate-limit:${key}}`;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${SHARED_COUNT_TIMEOUT_MS} ms`)),
        SHARED_COUNT_TIMEOUT_MS,
      );
    });
    try {
      const [hits, left] = await Promise.race([
        this.ready().then((client) => client.rateLimitHit(bucket, windowMs)),
        late,
      ]);
      return [Number(hits), Number(left)];
    } finally {
      clearTimeout(timer);
    }
  }

  /** Opens the connection now, so that it is ready by the first call (a Cluster's takes a moment). */
  connect(): this {
    this.open();
    return this;
  }

  /**
   * The connection, once it is ready (a command connection refuses commands before: it queues
   * none). Only the first attempt is waited for, within SHARED_COUNT_TIMEOUT_MS.
   */
  private async ready(): Promise<HitClient> {
    this.open();
    if (this.client!.status === 'ready') return this.client!;
    // Once the first attempt is over, a call does not wait for Redis: this process counts alone at once.
    if (!this.connecting) throw new Error(`the connection is ${this.client!.status}`);
    await once(this.client!, 'ready');
    return this.client!;
  }

  private open(): void {
    if (!this.client) {
      const client = this.connections.open('rate-limits', 'command');
      client.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
      const settled = () => (this.connecting = false);
      client.once('ready', settled);
      client.once('error', settled);
      this.client = client as HitClient;
    }
  }
}

/** A bucket's name: the action and a hash of the client, never the client's address itself. */
export const bucketOf = (action: string, client: string): string =>
  `${action}:${createHash('sha256').update(client).digest('base64url').slice(0, 22)}`;
