import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DatabaseConnector } from '../database/database.connector';
import { describeError } from '../errors';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import { Subscriptions } from './subscriptions';

/** How old the relay's routes may be. */
const ROUTES_MAX_AGE_MS = 1_000;

/** A consumer as the catalog knows it: enough to route a message to it, not to handle one. */
export interface Route {
  consumer: string;
  queue: string;
  types: string[];
  where: Record<string, string>;
}

/** Who takes a message of this type, with these headers, among these routes. */
export const routesOf = (routes: Route[], type: string, headers: Record<string, string> = {}): Route[] =>
  routes.filter(
    (route) =>
      route.types.includes(type) && Object.entries(route.where).every(([name, value]) => headers[name] === value),
  );

/**
 * The durable catalog of consumers (outbox.consumers): every process registers the consumers of
 * its version at boot and keeps them fresh while it runs; a consumer that no process has seen
 * for OUTBOX_CONSUMER_RETIRE_AFTER_MS is retired. Routing and delivery are judged by the catalog,
 * not by the consumers that one process happens to know, so that during a rolling deploy an older
 * relay or sweep never leaves out a consumer that only the newer version has.
 */
@Injectable()
export class ConsumerCatalog implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ConsumerCatalog');
  private heartbeat?: NodeJS.Timeout;
  private failing = false;
  private recent?: { at: number; routes: Promise<Route[]> };

  constructor(
    private readonly dataSource: DataSource,
    private readonly connector: DatabaseConnector,
    private readonly subscriptions: Subscriptions,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  onApplicationBootstrap(): void {
    void this.connector.ready.then(async () => {
      await this.register();
      this.heartbeat = setInterval(() => void this.register(), this.config.consumerRetireAfterMs / 4);
      this.heartbeat.unref();
    });
  }

  onApplicationShutdown(): void {
    clearInterval(this.heartbeat);
  }

  /** Records this version's consumers as alive now (a consumer's route is that of its newest version). */
  async register(): Promise<void> {
    const local = this.local();
    try {
      await this.dataSource.query(
        `INSERT INTO outbox.consumers (consumer, queue, types, "where")
         SELECT c, q, string_to_array(t, ' '), w::jsonb FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(c, q, t, w)
         ON CONFLICT (consumer) DO UPDATE
           SET queue = excluded.queue, types = excluded.types, "where" = excluded."where", seen_at = clock_timestamp()`,
        [
          local.map((route) => route.consumer),
          local.map((route) => route.queue),
          local.map((route) => route.types.join(' ')),
          local.map((route) => JSON.stringify(route.where)),
        ],
      );
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn(`Cannot register the consumers: ${describeError(error)}`);
      this.failing = true;
    }
  }

  /** Every consumer alive in some version: the catalog's, and this process's own (registered or not yet). */
  async routes(query: Pick<DataSource, 'query'> = this.dataSource): Promise<Route[]> {
    const rows = await query.query<Route[]>(
      `SELECT consumer, queue, types, "where" FROM outbox.consumers
        WHERE seen_at > clock_timestamp() - make_interval(secs => $1)`,
      [this.config.consumerRetireAfterMs / 1_000],
    );
    const local = this.local();
    const known = new Set(local.map((route) => route.consumer));
    return [...local, ...rows.filter((row) => !known.has(row.consumer))];
  }

  /**
   * The routes as read at most ROUTES_MAX_AGE_MS ago: the relay asks for every batch, and the
   * catalog changes only when a version starts or retires. A consumer registered meanwhile gets
   * what was routed without it from the sweep, as one that registers during a relay's batch does.
   */
  recentRoutes(): Promise<Route[]> {
    if (!this.recent || Date.now() - this.recent.at > ROUTES_MAX_AGE_MS) {
      const read = { at: Date.now(), routes: this.routes() };
      this.recent = read;
      read.routes.catch(() => this.recent === read && (this.recent = undefined));
    }
    return this.recent.routes;
  }

  /**
   * Whether the catalog (the consumer's newest registration, whichever version made it) routes a
   * message of this type, with these headers, to this consumer.
   */
  async takes(consumer: string, type: string, headers: Record<string, string>): Promise<boolean> {
    const rows = await this.dataSource.query<Route[]>(
      `SELECT consumer, queue, types, "where" FROM outbox.consumers
        WHERE consumer = $1 AND seen_at > clock_timestamp() - make_interval(secs => $2)`,
      [consumer, this.config.consumerRetireAfterMs / 1_000],
    );
    return routesOf(rows, type, headers).length > 0;
  }

  /** Whether some running version has this consumer. */
  async isAlive(consumer: string): Promise<boolean> {
    return (await this.routes()).some((route) => route.consumer === consumer);
  }

  private local(): Route[] {
    return this.subscriptions.consumers().map((consumer) => {
      const subscription = this.subscriptions.consumer(consumer)!;
      return {
        consumer,
        queue: subscription.queue,
        types: subscription.contracts.map((contract) => contract.type),
        where: subscription.where,
      };
    });
  }
}
