import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PeriodicTask } from '../../scheduling/periodic-task';
import { PeriodicTasks } from '../../scheduling/periodic-tasks';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import { OutboxMetrics } from '../outbox.metrics';
import { type DeliveryToPush, jobIdOf, jobsFor, type OutboxJob, OutboxQueues, withTrace } from '../outbox.queues';
import { MESSAGE_COLUMNS, type MessageRow } from '../message-row';
import { traceContextOf } from '../../tracing/message.tracing';
import { ConsumerCatalog, routesOf } from '../consuming/consumer-catalog';
import { isTimeout } from '../../database/timeouts';

const SWEEP_BATCH = 500;

/** A message claimed by the local bus of a process that is gone (unseen for its lease, `$5` seconds). */
const ORPHANED = `claimed_by IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM outbox.processes p
   WHERE p.id = claimed_by AND p.seen_at > clock_timestamp() - make_interval(secs => $5))`;

const isAlone = ({ delivery }: DeliveryToPush): boolean => (delivery as OutboxJob).alone === true;

interface Cursor {
  at: Date;
  id: string;
}

/**
 * Redis is not the durable copy, nor is a process. A message that the local bus of a process
 * claimed (ADR 0096) is left to that process while it lives, and taken over as soon as it is gone
 * (unseen for its lease), before the usual wait. A message counts as delivered only when every consumer of the
 * catalog (of any running version) that takes it has an inbox row (or a dead letter); one that no
 * consumer takes is delivered the first time the sweep sees it. This sweep finds published messages that
 * are still undelivered after a while, pushes them again to the consumers that lack one (a job
 * still in Redis keeps its id, so that is a no-op), and marks the complete ones delivered.
 */
@Injectable()
export class RedeliverySweeper {
  private readonly task: PeriodicTask;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: OutboxQueues,
    private readonly catalog: ConsumerCatalog,
    private readonly metrics: OutboxMetrics,
    tasks: PeriodicTasks,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {
    this.task = tasks.register('outbox-redelivery', 'relay', config.sweepIntervalMs, () => this.sweepAll());
  }

  /** One pass over everything overdue, batch after batch, each batch starting after the last. */
  async sweepAll(): Promise<void> {
    let after: Cursor = { at: new Date(0), id: '00000000-0000-0000-0000-000000000000' };
    for (;;) {
      const batch = await this.sweep(after);
      if (this.task.isStopped || !batch) return;
      after = batch;
    }
  }

  /** One batch; returns where the next one starts, or nothing when this was the last. */
  private sweep(after: Cursor): Promise<Cursor | undefined> {
    return this.dataSource
      .transaction(async (tx) => {
        const rows = await tx.query<Array<MessageRow & { published_at: Date; claimed: boolean; orphaned: boolean }>>(
          `SELECT ${MESSAGE_COLUMNS}, published_at, claimed_by IS NOT NULL AS claimed, ${ORPHANED} AS orphaned
             FROM outbox.messages
          WHERE published_at IS NOT NULL AND delivered_at IS NULL
            AND (published_at < clock_timestamp() - make_interval(secs => $1) OR ${ORPHANED})
            AND (published_at, id) > ($2, $3)
          ORDER BY published_at, id
          LIMIT $4
          FOR UPDATE SKIP LOCKED`,
          [this.config.redeliverAfterMs / 1_000, after.at, after.id, SWEEP_BATCH, this.config.processLeaseMs / 1_000],
        );
        if (rows.length === 0) return undefined;
        const ids = rows.map((row) => row.id);
        const settled = await tx.query<Array<{ message_id: string; consumer: string }>>(
          `SELECT message_id, consumer FROM outbox.inbox WHERE message_id = ANY($1::uuid[])
         UNION
         SELECT message_id, consumer FROM outbox.dead_letters
          WHERE message_id = ANY($1::uuid[]) AND status IN ('dead', 'discarded')`,
          [ids],
        );
        const done = new Set(settled.map((row) => `${row.message_id} ${row.consumer}`));

        const routes = await this.catalog.routes(tx);
        const delivered: string[] = [];
        const takenOver: string[] = [];
        const missing = rows.flatMap((row): DeliveryToPush[] => {
          const lacking = routesOf(routes, row.type, row.headers).filter(
            ({ consumer }) => !done.has(`${row.id} ${consumer}`),
          );
          if (lacking.length === 0) delivered.push(row.id);
          // A live process's claim is its own: its deliveries may still be running (a second run
          // beside one would not see what the first did outside its transaction, such as an email's
          // hand-over). It gives the claim back when one of them goes on through the queues.
          if (row.claimed && !row.orphaned) return [];
          if (row.orphaned && lacking.length > 0) takenOver.push(row.id);
          // The delivery's span continues the message's own trace. One that was in hand where its
          // process died runs alone, a suspect, as a job that stalled does (OutboxConsumer).
          return lacking.map(({ queue, consumer }) => ({
            queue,
            type: row.type,
            delivery: withTrace(
              { id: row.id, consumer, ...(row.orphaned ? { alone: true } : {}) },
              traceContextOf(row.headers),
            ),
          }));
        });
        if (missing.length > 0) {
          const [suspects, others] = [missing.filter(isAlone), missing.filter((each) => !isAlone(each))];
          await this.queues.push([
            ...suspects.map(({ queue, type, delivery }) => ({
              queue,
              jobId: jobIdOf(delivery.id, delivery.consumer),
              name: type,
              job: delivery,
            })),
            ...jobsFor(others, this.config.consumerBatchSize),
          ]);
          for (const { delivery } of missing) this.metrics.redelivered.inc({ consumer: delivery.consumer });
        }
        await tx.query(`UPDATE outbox.messages SET delivered_at = clock_timestamp() WHERE id = ANY($1::uuid[])`, [
          delivered,
        ]);
        // Taken over: from now on the message is the queues', as any other.
        if (takenOver.length > 0)
          await tx.query(`UPDATE outbox.messages SET claimed_by = NULL WHERE id = ANY($1::uuid[])`, [takenOver]);
        const last = rows[rows.length - 1];
        return rows.length === SWEEP_BATCH ? { at: last.published_at, id: last.id } : undefined;
      })
      .catch((error: unknown) => {
        if (isTimeout(error)) this.metrics.timeouts.inc({ stage: 'sweep' });
        throw error;
      });
  }
}
