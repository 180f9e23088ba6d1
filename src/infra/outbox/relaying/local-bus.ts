import { type BeforeApplicationShutdown, Injectable, Inject, Logger } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../../context/message-context';
import { describeError } from '../../errors';
import { Hooks } from '../../hooks/hooks';
import { traceContextOf, traceProcess } from '../../tracing/message.tracing';
import { DeliveryFailures } from '../consuming/delivery-failures';
import { Inbox } from '../consuming/inbox';
import { outagePatienceOf } from '../consuming/outage-patience';
import { LocalRoutes } from '../local-routes';
import type { OutboxMessage } from '../message';
import { type ClaimedMessage, OutboxCommits } from '../publishing/outbox-commits';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import { type ConsumeOutcome, OutboxMetrics } from '../outbox.metrics';
import type { Subscription } from '../consuming/subscriptions';
import { isUnreachable } from '../unreachable';

/** The longest a stopping process waits for its local deliveries to end. */
const DRAIN_AT_MOST_MS = 10_000;

/**
 * The inbox's group of the bus's deliveries: those that arrive together share one transaction,
 * whatever their queue (ADR 0098). A failure runs each again alone, as in any group.
 */
const LOCAL_GROUP = 'local';

/**
 * The in-process bus (OUTBOX_DELIVERY=local, ADR 0096). A message whose every consumer runs in the
 * process that writes it is written published and claimed by that process (the publisher asks
 * LocalRoutes), and handed to its consumers right after the commit, through the same inbox as a job's
 * delivery, with no Redis in between. The outbox row stays the durable record: a process that dies
 * before every consumer's inbox row commits leaves a claim that the sweep takes over once the
 * process's lease runs out (RedeliverySweeper); while the process lives, the sweep leaves the claim
 * alone. A delivery that fails goes on through the queues from its second attempt (attempts,
 * backoff, dead letters as for any job); one that meets an outage of Postgres goes there unspent;
 * either way the claim is given back once the message's deliveries here have ended. At most OUTBOX_LOCAL_IN_FLIGHT deliveries run here at
 * once; above that, messages go through the queues.
 */
@Injectable()
export class LocalBus implements BeforeApplicationShutdown {
  private readonly logger = new Logger('LocalBus');

  constructor(
    private readonly routes: LocalRoutes,
    private readonly inbox: Inbox,
    private readonly failures: DeliveryFailures,
    private readonly metrics: OutboxMetrics,
    private readonly hooks: Hooks,
    private readonly cls: ClsService<MessageContext>,
    commits: OutboxCommits,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {
    commits.listen(({ claimed }) => {
      if (claimed.length > 0) this.handOver(claimed);
    });
    metrics.followLocal(() => routes.figures());
  }

  /** Claims nothing more, and lets the deliveries in flight end (for a while). */
  beforeApplicationShutdown(): Promise<void> {
    return this.routes.drain(DRAIN_AT_MOST_MS);
  }

  /**
   * Every delivery of the committed messages starts in this turn of the event loop, so that those
   * of one queue share an inbox transaction; in a context of their own, not the committed one's.
   */
  private handOver(messages: ClaimedMessage[]): void {
    const handed = this.hooks.handingOver(messages);
    this.cls.run({ ifNested: 'override' }, () => {
      for (const message of handed) void this.deliverAll(message);
    });
  }

  /**
   * A message's deliveries, each in flight until all have ended and the claim is settled: kept
   * when every one ended here, given back when one went on through the queues.
   */
  private async deliverAll(message: ClaimedMessage): Promise<void> {
    const ends = message.subscriptions.map(() => this.routes.began(message.id));
    try {
      const settled = await Promise.all(message.subscriptions.map((each) => this.deliver(message, each)));
      if (!settled.every(Boolean)) await this.routes.giveBack(message.id);
    } finally {
      for (const ended of ends) ended();
    }
  }

  /** Whether the delivery ended here (handled, a duplicate, or dead-lettered), not through the queues. */
  private async deliver(claimed: ClaimedMessage, subscription: Subscription): Promise<boolean> {
    const startedAt = Date.now();
    const named = { id: claimed.id, consumer: subscription.consumer };
    const trace = traceProcess({ ...named, attempt: 1, trace: traceContextOf(claimed.headers) }, subscription.queue);
    let outcome: ConsumeOutcome = 'retried';
    let failure: unknown;
    let message: OutboxMessage | undefined;
    try {
      const hooks = this.hooks.delivery(subscription.consumer);
      const { subscriptions: _, ...written } = claimed;
      const handled = await this.inbox.handle({
        ...named,
        attempt: 1,
        subscription,
        message: written,
        group: LOCAL_GROUP,
        hooks,
        traceContext: trace.context,
        onRead: (read) => {
          message = read;
          return trace.read(read);
        },
      });
      hooks.afterCommit();
      outcome = handled === 'unrouted' ? 'refused' : handled;
      if (handled === 'duplicate') await this.failures.noteDuplicate(named, 1);
      // Not what the routes said: the queues' consumer knows what other versions take.
      if (handled === 'unrouted') await this.failures.goOnQueued(subscription.queue, named, 0, claimed.type);
      return handled !== 'unrouted';
    } catch (error) {
      failure = error;
      outcome = await this.failed(claimed, subscription, error, message);
      return outcome === 'dead';
    } finally {
      this.metrics.observeHandled(subscription.consumer, outcome, startedAt, claimed.createdAt);
      trace.end(outcome, failure);
    }
  }

  /** A first attempt that failed goes on through the queues: unspent after an outage, or as attempt 2. */
  private async failed(
    claimed: ClaimedMessage,
    subscription: Subscription,
    error: unknown,
    message?: OutboxMessage,
  ): Promise<ConsumeOutcome> {
    const named = { id: claimed.id, consumer: subscription.consumer };
    try {
      if (isUnreachable(error)) {
        await this.failures.goOnQueued(subscription.queue, named, 0, claimed.type);
        return 'postponed';
      }
      const patience = outagePatienceOf(this.config, subscription);
      const outcome = await this.failures.judge(named, 1, patience?.attempts ?? this.config.attempts, error, message);
      if (outcome === 'retried') {
        await this.failures.goOnQueued(subscription.queue, named, 1, claimed.type, patience?.waitAfter(1));
      }
      return outcome;
    } catch (unrecorded) {
      // Not even the failure could be recorded: its claim given back, the sweep takes it over.
      this.logger.warn(`${subscription.consumer} on message ${claimed.id}: ${describeError(unrecorded)}`);
      return 'postponed';
    }
  }
}
