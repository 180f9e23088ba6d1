import { ConflictException, GoneException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import { DataSource } from 'typeorm';
import type { MessageContext } from '../../context/message-context';
import { describeError } from '../../errors';
import { DeadLetterDiscarded, DeadLetterRedriven } from '../contracts';
import type { OutboxMessage } from '../message';
import { OutboxPublisher } from '../publishing/outbox.publisher';
import { jobsFor, OutboxQueues, withTrace } from '../outbox.queues';
import { traceContextOf } from '../../tracing/message.tracing';
import { ConsumerCatalog } from '../consuming/consumer-catalog';

export type DeadLetterStatus = 'dead' | 'redriven' | 'discarded';

export interface DeadLetter {
  id: string;
  messageId: string;
  consumer: string;
  type: string;
  correlationId: string;
  error: string;
  attempts: number;
  firstFailedAt: string;
  lastFailedAt: string;
  status: DeadLetterStatus;
  resolvedAt: string | null;
  message: Omit<OutboxMessage, 'id'>;
}

interface DeadLetterRow {
  id: string;
  message_id: string;
  consumer: string;
  type: string;
  correlation_id: string;
  message: OutboxMessage;
  error: string;
  attempts: number;
  first_failed_at: Date;
  last_failed_at: Date;
  status: DeadLetterStatus;
  resolved_at: Date | null;
}

const toDeadLetter = (row: DeadLetterRow): DeadLetter => {
  const { id: _messageId, ...message } = row.message;
  return {
    id: row.id,
    messageId: row.message_id,
    consumer: row.consumer,
    type: row.type,
    correlationId: row.correlation_id,
    error: row.error,
    attempts: row.attempts,
    firstFailedAt: row.first_failed_at.toISOString(),
    lastFailedAt: row.last_failed_at.toISOString(),
    status: row.status,
    resolvedAt: row.resolved_at?.toISOString() ?? null,
    message,
  };
};

/** What an operator can do with the messages that a consumer gave up on. */
@Injectable()
export class DeadLetters {
  private readonly logger = new Logger('DeadLetters');

  constructor(
    private readonly dataSource: DataSource,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
    private readonly outbox: OutboxPublisher,
    private readonly queues: OutboxQueues,
    private readonly catalog: ConsumerCatalog,
  ) {}

  async list(filter: { status?: DeadLetterStatus; consumer?: string; limit?: number } = {}): Promise<DeadLetter[]> {
    const rows = await this.dataSource.query<DeadLetterRow[]>(
      `SELECT * FROM outbox.dead_letters
        WHERE status = $1 AND ($2::text IS NULL OR consumer = $2)
        ORDER BY last_failed_at DESC
        LIMIT $3`,
      [filter.status ?? 'dead', filter.consumer ?? null, filter.limit ?? 100],
    );
    return rows.map(toDeadLetter);
  }

  /**
   * Delivers the message again to that consumer only, with a fresh set of attempts. The inbox
   * still guards it: if the effect did happen after all, the redrive changes nothing. The message
   * is pushed after the resolution commits, under its usual job id; should that push be lost, the
   * message is undelivered again, so the redelivery sweep pushes it. A dead letter whose message is
   * gone cannot be delivered: 410, and it stays open.
   */
  async redrive(id: string): Promise<DeadLetter> {
    let queue = '';
    const row = await this.resolve(id, 'redriven', async (closed) => {
      const route = (await this.catalog.routes()).find((candidate) => candidate.consumer === closed.consumer);
      if (!route) throw new ConflictException(`Consumer ${closed.consumer} no longer exists: discard instead`);
      queue = route.queue;
      const [, reopened] = await this.txHost.tx.query<[unknown[], number]>(
        `UPDATE outbox.messages SET delivered_at = NULL WHERE id = $1`,
        [closed.message_id],
      );
      // Housekeeping keeps the message of an open dead letter; one purged before it did cannot be delivered.
      if (reopened === 0) {
        throw new GoneException(`Message ${closed.message_id} is no longer in the outbox: discard this dead letter`);
      }
    });
    await this.queues
      .push(
        jobsFor(
          [
            {
              queue,
              type: row.type,
              delivery: withTrace({ id: row.message_id, consumer: row.consumer }, traceContextOf(row.message.headers)),
            },
          ],
          1,
        ),
      )
      .catch((error: unknown) =>
        this.logger.warn(`Redrive push failed; the sweep will push it: ${describeError(error)}`),
      );
    return toDeadLetter(row);
  }

  /** Gives up on it for good; the dead letter stays, marked discarded, as the record. */
  async discard(id: string): Promise<DeadLetter> {
    return toDeadLetter(await this.resolve(id, 'discarded', async () => undefined));
  }

  /**
   * Moves an open dead letter to its resolution and announces it, in the context of the process
   * it belongs to (so that it shows in that process's timeline), then does `then` in the same
   * transaction.
   */
  private resolve(
    id: string,
    status: Exclude<DeadLetterStatus, 'dead'>,
    then: (row: DeadLetterRow) => Promise<void>,
  ): Promise<DeadLetterRow> {
    return this.txHost.withTransaction(async () => {
      const row = await this.close(id, status);
      await this.cls.run({ ifNested: 'inherit' }, async () => {
        this.cls.set('correlationId', row.correlation_id);
        this.cls.set('causationId', row.message_id);
        this.cls.set('headers', row.message.headers);
        await this.outbox.publish(
          status === 'redriven' ? DeadLetterRedriven : DeadLetterDiscarded,
          {
            deadLetterId: row.id,
            messageId: row.message_id,
            type: row.type,
            aggregateId: row.message.aggregateId,
            consumer: row.consumer,
          },
          { aggregateId: row.message.aggregateId },
        );
      });
      await then(row);
      this.logger.warn(
        `${status === 'redriven' ? 'Redriven' : 'Discarded'} ${row.type} for ${row.consumer} (dead letter ${id})`,
      );
      return row;
    });
  }

  private async close(id: string, status: Exclude<DeadLetterStatus, 'dead'>): Promise<DeadLetterRow> {
    const query = this.txHost.tx.query.bind(this.txHost.tx);
    const [rows] = await query<[DeadLetterRow[], number]>(
      `UPDATE outbox.dead_letters SET status = $2, resolved_at = clock_timestamp()
        WHERE id = $1 AND status = 'dead'
        RETURNING *`,
      [id, status],
    );
    if (rows.length > 0) return rows[0];
    const [existing] = await query<Array<{ status: DeadLetterStatus }>>(
      `SELECT status FROM outbox.dead_letters WHERE id = $1`,
      [id],
    );
    if (!existing) throw new NotFoundException(`No dead letter ${id}`);
    throw new ConflictException(`Dead letter ${id} was already ${existing.status}`);
  }
}
