import { LogicalReplicationService, type Pgoutput, PgoutputPlugin } from 'pg-logical-replication';
import { describeError } from '../../errors';
import { lsnBefore, lsnValue, PUBLICATION } from './replication-slot';

/** A transaction read from the slot: the outbox rows it inserted, and where its commit ends. */
interface SlotTransaction {
  ids: string[];
  endLsn: string;
}

/** The slot the logical relay reads, and what it does with the rows it reads there. */
export interface SlotToRead {
  /** Postgres itself (DATABASE_DIRECT_URL): a replication connection cannot go through a pooler. */
  connectionString: string;
  name: string;
  /** Most ids handed to `publish` at once; the transactions read meanwhile are grouped up to it. */
  batchSize: number;
  /** How often, with nothing in hand, the server is asked for a keepalive. */
  pingEveryMs: number;
  /** Marks these rows published and pushes them; a failure ends the reading, their commits unconfirmed. */
  publish: (ids: string[]) => Promise<void>;
  /** Called before each position is confirmed: the lab's point between a push and its confirmation. */
  confirming: () => void;
  stopped: () => boolean;
}

/**
 * The logical relay's reading of its slot (ADR 0079): the pgoutput stream's begins, inserts and
 * commits made into transactions of outbox ids, handed to the relay to publish in batches, and the
 * slot's position confirmed once they are. What holds the reader's lock, prepares the slot and
 * marks the rows is the relay's (logical-relay.ts).
 */
export class SlotReader {
  constructor(private readonly slot: SlotToRead) {}

  /**
   * Reads the slot from `startedAt` until the stream ends or fails, or one of `stopWhen` resolves
   * (the lock lost, the process stopping); returns why it stopped. The position confirmed is a
   * commit's end once its rows are pushed and marked, or, when nothing is received and unhandled,
   * the server's WAL end from its keepalive (so that WAL written to other tables is not kept for
   * this slot).
   */
  async read(startedAt: string, stopWhen: Array<Promise<string>>): Promise<string> {
    const { batchSize } = this.slot;
    const service = new LogicalReplicationService(
      { connectionString: this.slot.connectionString, application_name: `outbox-relay:${this.slot.name}` },
      // Never confirmed by the library (its timer would confirm what was received, not pushed).
      { acknowledge: { auto: false, timeoutSeconds: 0 } },
    );
    let confirmed = startedAt;
    let open: string[] | undefined;
    const received: SlotTransaction[] = [];
    let handling: Promise<void> | undefined;
    let fail!: (reason: string) => void;
    const failed = new Promise<string>((resolve) => (fail = resolve));

    // The library sends the position after the one it is given: each is passed one byte early.
    const confirm = (lsn: string, ping = false) => {
      if (lsnValue(lsn) > lsnValue(confirmed)) confirmed = lsn;
      void service.acknowledge(lsnBefore(confirmed), ping);
    };
    const idle = () => open === undefined && received.length === 0 && handling === undefined;
    const handle = async () => {
      try {
        while (received.length > 0 && !this.slot.stopped()) {
          const taken = [received.shift()!];
          let count = taken[0].ids.length;
          while (received.length > 0 && count + received[0].ids.length <= batchSize) {
            count += received[0].ids.length;
            taken.push(received.shift()!);
          }
          const ids = taken.flatMap((transaction) => transaction.ids);
          for (let start = 0; start < ids.length; start += batchSize) {
            await this.slot.publish(ids.slice(start, start + batchSize));
          }
          this.slot.confirming();
          confirm(taken[taken.length - 1].endLsn);
        }
      } catch (error) {
        // Unconfirmed: the slot sends it again once the stream is opened again.
        fail(`relaying failed (${describeError(error)})`);
      }
    };

    service.on('data', (_lsn: string, message: Pgoutput.Message) => {
      if (message.tag === 'begin') open = [];
      else if (message.tag === 'insert') open?.push(String(message.new.id));
      else if (message.tag === 'commit' && open !== undefined) {
        if (open.length > 0) received.push({ ids: open, endLsn: message.commitEndLsn ?? message.commitLsn! });
        else if (received.length === 0 && !handling && message.commitEndLsn) confirm(message.commitEndLsn);
        open = undefined;
        if (!handling && received.length > 0) handling = handle().finally(() => (handling = undefined));
      }
    });
    service.on('heartbeat', (lsn: string, _at: number, shouldRespond: boolean) => {
      if (idle()) confirm(lsn);
      else if (shouldRespond) confirm(confirmed);
    });
    service.on('error', (error: Error) => fail(describeError(error)));
    // Asks the server for a keepalive, whose WAL end is confirmed when nothing is in hand.
    const ping = setInterval(() => idle() && confirm(confirmed, true), this.slot.pingEveryMs);
    const ended = service
      .subscribe(new PgoutputPlugin({ protoVersion: 1, publicationNames: [PUBLICATION] }), this.slot.name)
      .then(
        () => 'the replication stream ended',
        (error: unknown) => `the replication stream failed (${describeError(error)})`,
      );
    try {
      return await Promise.race([failed, ended, ...stopWhen]);
    } finally {
      clearInterval(ping);
      await service.stop().catch(() => undefined);
      await handling;
    }
  }
}
