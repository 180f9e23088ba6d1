import { Inject, Injectable, Logger } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../../context/message-context';
import { describeError } from '../../errors';
import { DeliveryLog } from '../dead-letters/delivery-log';
import { InvalidPayloadError, type OutboxMessage } from '../message';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import type { ConsumeOutcome } from '../outbox.metrics';
import { jobToGoOn, type OutboxDelivery, OutboxQueues } from '../outbox.queues';
import { PermanentFailure } from './permanent-failure';

/**
 * What becomes of a delivery whose handler failed, wherever it ran: another attempt, or, after
 * its last one or a failure no attempt can mend, a dead letter. Each is recorded and logged in
 * the message's context.
 */
@Injectable()
export class DeliveryFailures {
  private readonly logger = new Logger('DeliveryFailures');

  constructor(
    private readonly deliveryLog: DeliveryLog,
    private readonly queues: OutboxQueues,
    private readonly cls: ClsService<MessageContext>,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {}

  /** Decides between another attempt and a dead letter (after attempt `limit`), and records which. */
  async judge(
    named: OutboxDelivery,
    attempt: number,
    limit: number,
    error: unknown,
    message?: OutboxMessage,
  ): Promise<Extract<ConsumeOutcome, 'dead' | 'retried'>> {
    const reason = describeError(error);
    const what = `${message?.type ?? 'message'} ${named.id}`;
    const hopeless = error instanceof InvalidPayloadError || error instanceof PermanentFailure;
    if (hopeless || attempt >= limit) {
      await this.deliveryLog.deadLetter(named, attempt, reason);
      this.inContextOf(message, () =>
        this.logger.error(`Dead letter: ${what} for ${named.consumer} after ${attempt} attempt(s): ${reason}`),
      );
      return 'dead';
    }
    await this.deliveryLog.attempt(named, attempt, 'failed', reason).catch(() => undefined);
    this.inContextOf(message, () =>
      this.logger.warn(`${named.consumer} failed on ${what} (attempt ${attempt}), will retry: ${reason}`),
    );
    return 'retried';
  }

  /** A copy of a delivery already handled did nothing: noted, if Postgres takes it. */
  noteDuplicate(named: OutboxDelivery, attempt: number): Promise<void> {
    return this.deliveryLog.attempt(named, attempt, 'duplicate').catch(() => undefined);
  }

  /**
   * A delivery made outside the queues (by the local bus) goes on through them: as a job of its
   * own, with the attempts it has left and the backoff after those it spent (after none: postponed
   * by an outage, the first backoff, as a worker postpones). Redis out of reach, the sweep pushes it
   * after OUTBOX_REDELIVER_AFTER_MS instead. A consumer that waits out outages says its own wait.
   */
  async goOnQueued(
    queue: string,
    named: OutboxDelivery,
    attempted: number,
    type?: string,
    delayMs = this.config.backoffMs * 2 ** Math.max(Math.min(attempted - 1, 20), 0),
  ): Promise<void> {
    const job = jobToGoOn(
      queue,
      named,
      { attempted, limit: this.config.attempts, type },
      delayMs,
      this.config.backoffMs,
    );
    try {
      await this.queues.push([job]);
    } catch (error) {
      this.logger.warn(
        `Cannot queue ${named.consumer}'s delivery of message ${named.id} (${describeError(error)}): the sweep will`,
      );
    }
  }

  /** Log lines about a delivery carry its message's correlation id, once the message is read. */
  private inContextOf(message: OutboxMessage | undefined, log: () => void): void {
    if (!message) return log();
    this.cls.runWith({ correlationId: message.correlationId, causationId: message.id, headers: message.headers }, log);
  }
}
