import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { DatabaseConnector } from '../database/database.connector';
import { describeError } from '../errors';
import { AppRoles } from '../roles/app-roles';
import { ConsumerCatalog, type Route, routesOf } from './consuming/consumer-catalog';
import { outboxConfig, type OutboxConfig } from './outbox.config';
import { ProcessLease } from './process-lease';
import { type Subscription, Subscriptions } from './consuming/subscriptions';

/** How often the routes of every running version are read again. */
const REFRESH_MS = 1_000;
/** Routes older than this (Postgres out of reach) claim nothing: messages go through the queues. */
const STALE_MS = 5_000;
/** The first pause before a claim is given back again while Postgres is out of reach; it doubles up to the cap. */
const GIVE_BACK_FIRST_MS = 100;
const GIVE_BACK_CAP_MS = 2_000;

/**
 * Which messages this process may deliver itself (OUTBOX_DELIVERY=local): those whose every
 * consumer, in every running version of the app (the catalog's routes, read every second), runs
 * here, in a role this process has, with the same queue. One consumer elsewhere (a role on other
 * hosts, a version that takes the type and this one does not), and the message goes through the
 * queues as before. While it may claim, the process holds its lease: what it claimed and did not
 * deliver, because it died, is the sweep's once the lease runs out. A claim whose delivery went on
 * through the queues is given back, so that the sweep covers it as any other message, and so is
 * one that the process does not have in hand (giveBackForgotten).
 */
@Injectable()
export class LocalRoutes implements OnApplicationBootstrap, OnApplicationShutdown {
  private snapshot?: { at: number; routes: Route[] };
  private timer?: NodeJS.Timeout;
  private release?: () => void;
  private stopped = false;
  /** When each local delivery in flight in this process started. */
  private readonly inFlight = new Map<symbol, { messageId: string; at: number }>();
  private forgotten?: NodeJS.Timeout;
  private drained?: () => void;
  private shutDown = false;
  private readonly logger = new Logger('LocalRoutes');

  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: ConsumerCatalog,
    private readonly subscriptions: Subscriptions,
    private readonly roles: AppRoles,
    private readonly lease: ProcessLease,
    private readonly connector: DatabaseConnector,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.delivery !== 'local') return;
    if (this.subscriptions.queues((role) => this.roles.has(role)).length === 0) return;
    void this.connector.ready.then(() => {
      if (this.stopped) return;
      this.release = this.lease.hold();
      this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
      this.timer.unref();
      void this.refresh();
      this.forgotten = setInterval(
        () => void this.giveBackForgotten().catch(() => undefined),
        this.config.sweepIntervalMs,
      );
      this.forgotten.unref();
    });
  }

  /** Claims nothing from now on (the process is stopping). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.forgotten);
    this.release?.();
  }

  onApplicationShutdown(): void {
    this.shutDown = true;
    this.stop();
  }

  get processId(): string {
    return this.lease.processId;
  }

  /**
   * The consumers this process delivers such a message to itself, after the commit of the
   * transaction that writes it: every consumer of it, when all run here and fewer than
   * OUTBOX_LOCAL_IN_FLIGHT deliveries are in flight; none when it goes through the queues.
   */
  claims(type: string, headers: Record<string, string>): Subscription[] | undefined {
    const { snapshot } = this;
    if (this.stopped || !snapshot || Date.now() - snapshot.at > STALE_MS || !this.lease.isSeen) return undefined;
    if (this.inFlight.size >= this.config.localInFlight) return undefined;
    const routes = routesOf(snapshot.routes, type, headers);
    if (routes.length === 0) return undefined;
    const here = this.subscriptions.of(type, headers).filter((subscription) => this.roles.has(subscription.role));
    const mine = routes.map((route) => here.find((s) => s.consumer === route.consumer && s.queue === route.queue));
    return mine.every((subscription) => subscription !== undefined) ? mine : undefined;
  }

  /**
   * Gives a message's claim back, once its deliveries here ended and one of them went on through
   * the queues (or should have): the sweep then covers it as any other message. Waits for Postgres
   * as long as the process runs; a process that stops first leaves the claim to its lease.
   */
  async giveBack(messageId: string): Promise<void> {
    for (let pauseMs = GIVE_BACK_FIRST_MS; !this.shutDown; pauseMs = Math.min(pauseMs * 2, GIVE_BACK_CAP_MS)) {
      try {
        await this.dataSource.query(`UPDATE outbox.messages SET claimed_by = NULL WHERE id = $1 AND claimed_by = $2`, [
          messageId,
          this.processId,
        ]);
        return;
      } catch (error) {
        if (pauseMs === GIVE_BACK_FIRST_MS)
          this.logger.warn(
            `Message ${messageId}: its claim waits for Postgres to be given back (${describeError(error)})`,
          );
        await sleep(pauseMs);
      }
    }
  }

  /**
   * Gives back the claims this process holds and has not in hand: those of a transaction whose
   * COMMIT answer was lost (the process took it as failed, yet it committed), or any other a
   * delivery here never began. Only those published longer ago than twice the sweep's wait, by
   * when the sweep has marked the delivered ones: what it gives back, the sweep then covers.
   */
  async giveBackForgotten(): Promise<void> {
    const inHand = [...this.inFlight.values()].map((delivery) => delivery.messageId);
    await this.dataSource.query(
      `UPDATE outbox.messages SET claimed_by = NULL
        WHERE claimed_by = $1 AND delivered_at IS NULL
          AND published_at < clock_timestamp() - make_interval(secs => $2) AND id <> ALL($3::uuid[])`,
      [this.processId, (2 * this.config.redeliverAfterMs) / 1_000, inHand],
    );
  }

  /** A local delivery of a message began; the returned function says it ended. */
  began(messageId: string): () => void {
    const key = Symbol();
    this.inFlight.set(key, { messageId, at: Date.now() });
    return () => {
      this.inFlight.delete(key);
      if (this.inFlight.size === 0) this.drained?.();
    };
  }

  /** Local deliveries in flight, and the age of the oldest (0: none). */
  figures(): { inFlight: number; oldestAgeSeconds: number } {
    if (this.inFlight.size === 0) return { inFlight: 0, oldestAgeSeconds: 0 };
    return {
      inFlight: this.inFlight.size,
      oldestAgeSeconds: (Date.now() - Math.min(...[...this.inFlight.values()].map((delivery) => delivery.at))) / 1_000,
    };
  }

  /** Claims nothing more, and resolves once the deliveries in flight ended, or after `atMostMs`. */
  async drain(atMostMs: number): Promise<void> {
    this.stop();
    if (this.inFlight.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, atMostMs);
      this.drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async refresh(): Promise<void> {
    try {
      this.snapshot = { at: Date.now(), routes: await this.catalog.recentRoutes() };
    } catch {
      // The snapshot ages; past STALE_MS nothing is claimed.
    }
  }
}
