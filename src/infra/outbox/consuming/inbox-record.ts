import type { OutboxMessage } from '../message';
import { messageColumns, type MessageRow, toMessage } from '../message-row';
import type { Subscription } from './subscriptions';

// The statement that records a batch of deliveries in the inbox, and what it says of each.

/** What the record statement needs of a delivery (what an InboxDelivery holds). */
export interface DeliveryToRecord {
  id: string;
  consumer: string;
  attempt: number;
  subscription: Pick<Subscription, 'contracts' | 'where'>;
}

/**
 * `foreign`: the message is not in this deployment's outbox (a job of another deployment).
 * `unrouted`: it is, but this consumer (as this process has it) does not take its type, or not
 * with its headers: a forged job, or one for another version of the consumer. Neither is recorded.
 */
export type InboxOutcome = 'ok' | 'duplicate' | 'foreign' | 'unrouted';

/** A delivery's message as the record statement read it, and whether the delivery was new. */
export interface Read {
  message?: OutboxMessage;
  routed: boolean;
  fresh: boolean;
}

export interface RecordRow extends MessageRow {
  n: string;
  routed: boolean;
  fresh: boolean;
}

const keyOf = ({ id, consumer }: DeliveryToRecord) => `${id} ${consumer}`;

/**
 * The positions of a batch's deliveries, by aggregate, those of one aggregate in the order they
 * came: two batches that lock the same rows (a read model's, keyed by the aggregate) then take
 * them in the same order, and wait for each other rather than deadlock.
 */
export const inAggregateOrder = (reads: Read[]): number[] =>
  reads
    .map((_, index) => index)
    .sort((a, b) => {
      const [x, y] = [reads[a].message?.aggregateId ?? '', reads[b].message?.aggregateId ?? ''];
      return x < y ? -1 : x > y ? 1 : a - b;
    });

/**
 * Reads each delivery's message from the outbox, and inserts the inbox rows of those whose
 * consumer takes the message (see Inbox.record); a row a delivery, `fresh` when it inserted one.
 */
export const RECORD = `WITH d AS (
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[])
       WITH ORDINALITY AS d(message_id, consumer, attempt, types, filter, n)),
   m AS (
     SELECT d.n, d.consumer, d.attempt, ${messageColumns('o')},
            o.type = ANY (string_to_array(d.types, ' ')) AND o.headers @> d.filter::jsonb AS routed
       FROM d JOIN outbox.messages o ON o.id = d.message_id),
   recorded AS (
     INSERT INTO outbox.inbox (message_id, consumer, correlation_id, attempt)
     SELECT m.id, m.consumer, m.correlation_id, m.attempt FROM m
      WHERE m.routed
        AND NOT EXISTS (SELECT 1 FROM outbox.dead_letters l
                         WHERE l.message_id = m.id AND l.consumer = m.consumer AND l.status = 'dead')
     ON CONFLICT DO NOTHING
     RETURNING message_id, consumer)
   SELECT m.*, EXISTS (SELECT 1 FROM recorded r WHERE r.message_id = m.id AND r.consumer = m.consumer) AS fresh
     FROM m`;

export const recordParameters = (items: DeliveryToRecord[]): unknown[] => [
  items.map((item) => item.id),
  items.map((item) => item.consumer),
  items.map((item) => item.attempt),
  items.map((item) => item.subscription.contracts.map((contract) => contract.type).join(' ')),
  items.map((item) => JSON.stringify(item.subscription.where)),
];

/** What the record statement said of each delivery, in the order of `items`. */
export function readsOf(items: DeliveryToRecord[], rows: RecordRow[]): Read[] {
  const reads: Read[] = items.map(() => ({ routed: false, fresh: false }));
  for (const row of rows) {
    reads[Number(row.n) - 1] = { message: toMessage(row), routed: row.routed, fresh: row.fresh };
  }
  return reads;
}

/**
 * What each delivery is, by what the record statement said of it: a message this outbox lacks is
 * foreign, one its consumer does not take unrouted, a row that existed (or a second copy in the
 * same batch) a duplicate.
 */
export function outcomesOf(items: DeliveryToRecord[], reads: Read[]): InboxOutcome[] {
  const recorded = new Set<string>();
  const outcomes: InboxOutcome[] = [];
  for (const index of inAggregateOrder(reads)) {
    const { message, routed, fresh } = reads[index];
    const first = fresh && !recorded.has(keyOf(items[index]));
    if (first) recorded.add(keyOf(items[index]));
    outcomes[index] = !message ? 'foreign' : !routed ? 'unrouted' : first ? 'ok' : 'duplicate';
  }
  return outcomes;
}
