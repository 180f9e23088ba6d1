import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DatabaseConnector } from '../../database/database.connector';
import { describeError } from '../../errors';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import { Subscriptions } from './subscriptions';

/** How old the relay's routes may be. */
const ROUTES_MAX_AGE_MS = 1_000;

/** A consumer as one version of the app declares it: enough to route a message to it, not to handle one. */
export interface Route {
  consumer: string;
  queue: string;
  types: string[];
  where: Record<string, string>;
}

const takesMessage = (route: Route, type: string, headers: Record<string, string>): boolean =>
  route.types.includes(type) && Object.entries(route.where).every(([name, value]) => headers[name] === value);

/**
 * Who takes a message of this type, with these headers, among these routes (of every running
 * version): each consumer once per queue, whichever of its versions takes it. Two versions of a
 * consumer that declare different queues both get the message, and the inbox makes it take effect once.
 */
export const routesOf = (routes: Route[], type: string, headers: Record<string, string> = {}): Route[] => {
  const seen = new Set<string>();
  return routes.filter((route) => {
    const key = `${route.consumer} ${route.queue}`;
    if (!takesMessage(route, type, headers) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/**
 * The version of a consumer's declaration: every process that declares it with the same queue,
 * types and header filter names the same version, whatever release it runs.
 */
export const versionOf = (route: Route): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        route.queue,
        [...route.types].sort(),
        Object.entries(route.where).sort(([a], [b]) => (a < b ? -1 : 1)),
      ]),
    )
    .digest('hex')
    .slice(0, 16);

/**
 * The durable catalog of consumers (outbox.consumer_versions): every process registers the
 * consumers of its version at boot, each under the version of its declaration, and keeps them
 * fresh while it runs; a version that no process has seen for OUTBOX_CONSUMER_RETIRE_AFTER_MS is
 * retired. Routing and delivery are judged by every live version of every consumer, not by the
 * consumers that one process happens to know, so that during a rolling deploy an older relay or
 * sweep never leaves out a consumer, or a type of one, that only the newer version has (ADR 0089).
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

  /**
   * Records this version's consumers as alive now. Also in outbox.consumers, as processes of the
   * versions before ADR 0089 do (the newest registration of a consumer wins there): those read only
   * that table, and must go on routing to the consumers that only this version has.
   */
  async register(): Promise<void> {
    const local = this.local();
    try {
      await this.dataSource.query(
        `WITH declared AS (
           SELECT c, v, q, string_to_array(t, ' ') AS t, w::jsonb AS w
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(c, v, q, t, w)),
         versions AS (
           INSERT INTO outbox.consumer_versions (consumer, version, queue, types, "where")
           SELECT c, v, q, t, w FROM declared
           ON CONFLICT (consumer, version) DO UPDATE SET seen_at = clock_timestamp())
         INSERT INTO outbox.consumers (consumer, queue, types, "where")
         SELECT c, q, t, w FROM declared
         ON CONFLICT (consumer) DO UPDATE
           SET queue = excluded.queue, types = excluded.types, "where" = excluded."where", seen_at = clock_timestamp()`,
        [
          local.map((route) => route.consumer),
          local.map(versionOf),
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

  /**
   * Every live version of every consumer: the catalog's, and this process's own (registered or not
   * yet). outbox.consumers holds what processes of the versions before ADR 0089 registered.
   */
  async routes(query: Pick<DataSource, 'query'> = this.dataSource): Promise<Route[]> {
    const rows = await query.query<Route[]>(
      `SELECT consumer, queue, types, "where" FROM outbox.consumer_versions
        WHERE seen_at > clock_timestamp() - make_interval(secs => $1)
       UNION
       SELECT consumer, queue, types, "where" FROM outbox.consumers
        WHERE seen_at > clock_timestamp() - make_interval(secs => $1)`,
      [this.config.consumerRetireAfterMs / 1_000],
    );
    return [...this.local(), ...rows];
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

  /** Whether some running version of this consumer takes a message of this type, with these headers. */
  async takes(consumer: string, type: string, headers: Record<string, string>): Promise<boolean> {
    return routesOf(await this.routes(), type, headers).some((route) => route.consumer === consumer);
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
