import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { PeriodicTask } from '../scheduling/periodic-task';
import { PeriodicTasks } from '../scheduling/periodic-tasks';
import { outboxConfig, type OutboxConfig } from './outbox.config';

const PURGE_BATCH = 1_000;

/**
 * Deletes what the transport no longer needs, in small batches so that no purge holds locks for
 * long: delivered messages, inbox rows, attempt records, runs and processes older than the
 * retention. A crash is kept until its delivery ends, however old. A message is
 * kept while one of its dead letters is open, so that a redrive can deliver it; an inbox row is
 * kept while its message is, since it is what stops a redelivery (or a redrive) from taking effect
 * twice. Dead letters are never purged: they are the operators' record.
 */
@Injectable()
export class Housekeeping {
  private readonly logger = new Logger('Housekeeping');
  private readonly task: PeriodicTask;

  constructor(
    private readonly dataSource: DataSource,
    tasks: PeriodicTasks,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {
    this.task = tasks.register('outbox-housekeeping', 'relay', config.housekeepingIntervalMs, async () => {
      const purged = await this.purge();
      const total = Object.values(purged).reduce((sum, count) => sum + count, 0);
      if (total > 0) this.logger.log(`Purged ${JSON.stringify(purged)}`);
    });
  }

  /** Purges everything past the retention; returns how many rows of each kind went. */
  async purge(retentionHours = this.config.retentionHours): Promise<Record<string, number>> {
    const cutoff = new Date(Date.now() - retentionHours * 3_600_000);
    return {
      messages: await this.inBatches(
        `DELETE FROM outbox.messages WHERE id IN (
           SELECT m.id FROM outbox.messages m
            WHERE m.delivered_at < $1
              AND NOT EXISTS (SELECT 1 FROM outbox.dead_letters d WHERE d.message_id = m.id AND d.status = 'dead')
            LIMIT ${PURGE_BATCH})`,
        cutoff,
      ),
      inbox: await this.inBatches(
        `DELETE FROM outbox.inbox WHERE (message_id, consumer) IN (
           SELECT i.message_id, i.consumer FROM outbox.inbox i
            WHERE i.handled_at < $1
              AND NOT EXISTS (SELECT 1 FROM outbox.messages m WHERE m.id = i.message_id)
            LIMIT ${PURGE_BATCH})`,
        cutoff,
      ),
      // A crash is kept while its delivery has not ended: it still counts toward OUTBOX_CRASH_LIMIT.
      attempts: await this.inBatches(
        `DELETE FROM outbox.delivery_attempts WHERE id IN (
           SELECT a.id FROM outbox.delivery_attempts a
            WHERE a.at < $1
              AND NOT (a.outcome = 'crashed'
                       AND EXISTS (SELECT 1 FROM outbox.messages m WHERE m.id = a.message_id)
                       AND NOT EXISTS (SELECT 1 FROM outbox.inbox i
                                        WHERE i.message_id = a.message_id AND i.consumer = a.consumer))
            LIMIT ${PURGE_BATCH})`,
        cutoff,
      ),
      // A run left by a process that died, whose delivery ended elsewhere or whose message is gone:
      // nobody will take that delivery again to charge it.
      runs: await this.inBatches(
        `DELETE FROM outbox.runs WHERE id IN (
           SELECT r.id FROM outbox.runs r
            WHERE r.began_at < $1
              AND (NOT EXISTS (SELECT 1 FROM outbox.messages m WHERE m.id = r.message_id)
                   OR EXISTS (SELECT 1 FROM outbox.inbox i WHERE i.message_id = r.message_id AND i.consumer = r.consumer))
            LIMIT ${PURGE_BATCH})`,
        cutoff,
      ),
      processes: await this.inBatches(
        `DELETE FROM outbox.processes WHERE id IN (
           SELECT p.id FROM outbox.processes p
            WHERE p.seen_at < $1 AND NOT EXISTS (SELECT 1 FROM outbox.runs r WHERE r.process_id = p.id)
            LIMIT ${PURGE_BATCH})`,
        cutoff,
      ),
    };
  }

  private async inBatches(sql: string, cutoff: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted] = await this.dataSource.query<[unknown[], number]>(sql, [cutoff]);
      total += deleted;
      if (deleted < PURGE_BATCH || this.task.isStopped) return total;
    }
  }
}
