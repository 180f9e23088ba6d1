import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { writeSync } from 'node:fs';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { databaseConfig, type DatabaseConfig } from '../../../config/database.config';
import { DatabaseConnector } from '../../database/database.connector';
import { isTimeout } from '../../database/timeouts';
import { describeError } from '../../errors';
import { Hooks } from '../../hooks/hooks';
import { AppRoles } from '../../roles/app-roles';
import { messageColumns, type MessageRow } from '../message-row';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import { OutboxMetrics } from '../outbox.metrics';
import { OutboxRelay } from './outbox.relay';
import { logicalRelayProblems, PUBLICATION, slotNameFor } from './replication-slot';
import { SlotReader } from './slot-reader';

/** How long a replica waits between two tries at the reader's lock, or after losing the stream. */
const RETRY_MS = 1_000;
/** A row unpublished this long after it was written is relayed by the polling claim (netForLateRows). */
export const LATE_AFTER_MS = 5_000;

/**
 * The relay of OUTBOX_RELAY=logical (ADR 0079): it reads the inserts into outbox.messages from a
 * logical replication slot (pgoutput, a publication of the table's id column), marks those rows
 * published and pushes them with the polling relay's routing and jobs, in one transaction, and
 * only then confirms the slot's position. A process that dies before the confirmation is sent the
 * same transactions again by the slot: pushed again under the same job ids, absorbed by the inbox.
 *
 * One reader at a time: the replicas that relay try a session advisory lock, on a connection to
 * Postgres itself (DATABASE_DIRECT_URL), once a second; the holder reads, and when it dies its
 * session ends, the lock is free, and the next try of another replica takes over. The publication
 * and the slot are made by the first reader if missing; rows written before the slot existed (or
 * left unpublished by a polling relay before the switch) are relayed once, by the polling relay's
 * claim, when a reader starts. The sweep, the redrive and housekeeping work as with polling: the
 * rows are marked published.
 */
@Injectable()
export class LogicalRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('LogicalRelay');
  readonly slot: string;
  private readonly lockKey: string;
  private readonly reader: SlotReader;
  private stopped = false;
  private running?: Promise<void>;
  private lock?: Client;
  private wakeFromPause?: () => void;
  private stopStream?: () => void;
  /** Whether this process holds the reader's lock and reads the slot now. */
  reading = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly connector: DatabaseConnector,
    private readonly relay: OutboxRelay,
    private readonly metrics: OutboxMetrics,
    private readonly hooks: Hooks,
    private readonly roles: AppRoles,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
  ) {
    this.slot = slotNameFor(config.slotName, database.directUrl);
    this.lockKey = `outbox-relay:${this.slot}`;
    this.reader = new SlotReader({
      connectionString: database.directUrl,
      name: this.slot,
      batchSize: config.relayBatchSize,
      pingEveryMs: config.relayIntervalMs,
      publish: (ids) => this.publish(ids),
      confirming: () => this.hooks.confirming(),
      stopped: () => this.stopped,
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.relay !== 'logical' || !this.roles.has('relay')) return;
    void this.connector.ready.then(() => {
      if (!this.stopped) this.running = this.run();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.wakeFromPause?.();
    this.stopStream?.();
    await this.running;
  }

  private async run(): Promise<void> {
    let checked = false;
    let failing = false;
    while (!this.stopped) {
      try {
        if (!checked) {
          const problems = await logicalRelayProblems(this.dataSource);
          if (problems.length > 0) {
            refuseToRun(
              `OUTBOX_RELAY=logical needs ${problems.join(', ')}: not starting (or set OUTBOX_RELAY=polling)`,
            );
          }
          checked = true;
        }
        await this.readWhileHoldingTheLock();
        failing = false;
      } catch (error) {
        if (!failing) this.logger.warn(`Logical relay: ${describeError(error)}; trying again every ${RETRY_MS} ms`);
        failing = true;
        await this.dropLock();
      }
      if (!this.stopped) await this.pause(RETRY_MS);
    }
    await this.dropLock();
  }

  /** Takes the reader's lock if it is free, and reads the slot for as long as it is held. */
  private async readWhileHoldingTheLock(): Promise<void> {
    const lock = await this.lockConnection();
    const {
      rows: [{ locked }],
    } = await lock.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1)) AS locked`, [this.lockKey]);
    if (!locked || this.stopped) return;
    const lost = new Promise<string>((resolve) => {
      lock.once('end', () => resolve('the lock connection ended'));
      lock.once('error', (error) => resolve(`the lock connection failed (${describeError(error)})`));
    });
    try {
      const confirmed = await this.prepare(lock);
      this.reading = true;
      this.logger.log(`Reading the outbox's inserts from slot ${this.slot} (this process holds the reader's lock)`);
      // Rows the slot cannot have: written before it existed, or left by a polling relay.
      await this.relay.drain(() => this.stopped);
      const net = this.netForLateRows();
      const stopping = new Promise<string>((resolve) => (this.stopStream = () => resolve('stopping')));
      const reason = await this.reader.read(confirmed, [lost, stopping]).finally(() => {
        this.stopStream = undefined;
        return net.stop();
      });
      if (!this.stopped) this.logger.warn(`Stopped reading slot ${this.slot}: ${reason}`);
    } finally {
      this.reading = false;
      // Let the next try, here or elsewhere, start from a fresh session.
      await this.dropLock();
    }
  }

  /**
   * While the slot is read, every LATE_AFTER_MS, relays with the polling claim the rows written
   * longer ago than that and still unpublished: those the slot carried before the relay could see
   * them and gave up on (see publish; a commit that waits for a synchronous standby is written,
   * and carried, a while before it is visible). Most of the time it finds none, through the
   * partial index of unpublished rows.
   */
  private netForLateRows(): { stop: () => Promise<void> } {
    let running: Promise<void> | undefined;
    const timer = setInterval(() => {
      running ??= this.relay
        .drain(() => this.stopped, LATE_AFTER_MS)
        .catch((error: unknown) => this.logger.warn(`Relaying late rows failed: ${describeError(error)}`))
        .finally(() => (running = undefined));
    }, LATE_AFTER_MS);
    return {
      stop: async () => {
        clearInterval(timer);
        await running;
      },
    };
  }

  /** Makes the publication and the slot if missing; returns the slot's confirmed position. */
  private async prepare(lock: Client): Promise<string> {
    const { rowCount } = await lock.query(`SELECT 1 FROM pg_publication WHERE pubname = $1`, [PUBLICATION]);
    if (rowCount === 0) {
      await lock.query(`CREATE PUBLICATION ${PUBLICATION} FOR TABLE outbox.messages (id) WITH (publish = 'insert')`);
      this.logger.log(`Created publication ${PUBLICATION} (inserts into outbox.messages)`);
    }
    const existing = await lock.query<{ confirmed: string }>(
      `SELECT confirmed_flush_lsn::text AS confirmed FROM pg_replication_slots WHERE slot_name = $1`,
      [this.slot],
    );
    if (existing.rows[0]) return existing.rows[0].confirmed;
    const {
      rows: [{ lsn }],
    } = await lock.query<{ lsn: string }>(
      `SELECT lsn::text AS lsn FROM pg_create_logical_replication_slot($1, 'pgoutput')`,
      [this.slot],
    );
    this.logger.log(`Created logical replication slot ${this.slot} at ${lsn}`);
    return lsn;
  }

  /**
   * Marks these rows published and pushes them, in one transaction: a push that fails, or a
   * process that dies, before the commit leaves them as they were (and unconfirmed). A row marked
   * already is not pushed again: its mark committed with its push (by the claim when the reader
   * started, by the net for late rows, or by a reader that died before it confirmed).
   *
   * A commit reaches the slot as soon as its WAL record is written, a moment before the committing
   * session makes it visible to others: a row the statement does not see yet is looked for again,
   * after 1, 2, 4 ... ms (each statement takes a new snapshot), up to about two seconds. One still
   * missing then was purged by housekeeping (delivered long ago: a slot read again from far back),
   * or is not visible yet (a commit waiting for a synchronous standby): the net for late rows
   * (netForLateRows) takes it once it is.
   */
  private publish(ids: string[]): Promise<void> {
    return this.dataSource
      .transaction(async (tx) => {
        // Locked first, so that a claim marking the same row meanwhile (the net for late rows) is
        // waited for, and its mark seen.
        const mark = (some: string[]) =>
          tx.query<Array<MessageRow & { already: boolean }>>(
            `WITH found AS (
               SELECT id, published_at IS NOT NULL AS already FROM outbox.messages
                WHERE id = ANY($1::uuid[])
                  FOR UPDATE),
             marked AS (
               UPDATE outbox.messages m SET published_at = coalesce(m.published_at, clock_timestamp())
                 FROM found WHERE m.id = found.id
               RETURNING ${messageColumns('m')}, found.already)
             SELECT * FROM marked`,
            [some],
          );
        const rows = await mark(ids);
        for (let waitMs = 1; rows.length < ids.length && waitMs <= 1_024; waitMs *= 2) {
          await new Promise((resolve) => setTimeout(resolve, waitMs));
          const found = new Set(rows.map((row) => row.id));
          rows.push(...(await mark(ids.filter((id) => !found.has(id)))));
        }
        if (rows.length < ids.length) {
          this.logger.warn(`${ids.length - rows.length} message(s) read from slot ${this.slot} are not in the outbox`);
        }
        // In the slot's order: commit order, and within a transaction, insert order.
        const order = new Map(ids.map((id, index) => [id, index]));
        rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
        const unpushed = rows.filter((row) => !row.already).map(({ already: _, ...row }) => row);
        if (unpushed.length > 0) await this.relay.pushRows(unpushed);
        await this.hooks.pushed();
        return rows.length;
      })
      .then((count) => this.metrics.slotRelayed.inc(count))
      .catch((error: unknown) => {
        if (isTimeout(error)) this.metrics.timeouts.inc({ stage: 'relay' });
        throw error;
      });
  }

  private async lockConnection(): Promise<Client> {
    if (this.lock) return this.lock;
    const lock = new Client({
      connectionString: this.database.directUrl,
      application_name: `outbox-relay-lock:${this.slot}`,
    });
    lock.on('error', () => undefined);
    this.lock = lock;
    try {
      await lock.connect();
    } catch (error) {
      this.lock = undefined;
      throw error;
    }
    return lock;
  }

  /** Ends the lock's session, which lets the lock go if this process held it. */
  private async dropLock(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.end().catch(() => undefined);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeFromPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/**
 * The app refuses to run a relay that cannot work: one line, straight to stderr (the log is
 * written asynchronously and would be lost), and the process ends with status 1.
 */
function refuseToRun(line: string): never {
  writeSync(2, `${line}\n`);
  process.exit(1);
}
