import type { OutboxMessage } from './message';

/** A row of outbox.messages, as the relay, the sweep and the inbox read it. */
export interface MessageRow {
  id: string;
  kind: OutboxMessage['kind'];
  type: string;
  aggregate_id: string;
  payload: unknown;
  correlation_id: string;
  causation_id: string | null;
  headers: Record<string, string>;
  created_at: Date;
}

const COLUMNS = [
  'id',
  'kind',
  'type',
  'aggregate_id',
  'payload',
  'correlation_id',
  'causation_id',
  'headers',
  'created_at',
];

/** The columns of a MessageRow, for a SELECT list; qualified by a table alias when given. */
export const messageColumns = (alias?: string): string =>
  COLUMNS.map((column) => (alias ? `${alias}.${column}` : column)).join(', ');

export const MESSAGE_COLUMNS = messageColumns();

export const toMessage = (row: MessageRow): OutboxMessage => ({
  id: row.id,
  kind: row.kind,
  type: row.type,
  aggregateId: row.aggregate_id,
  payload: row.payload,
  correlationId: row.correlation_id,
  causationId: row.causation_id,
  headers: row.headers,
  createdAt: row.created_at.toISOString(),
});
