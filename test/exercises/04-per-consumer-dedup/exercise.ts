import type { Type } from '@nestjs/common';
import { IsInt, IsUUID, Min } from 'class-validator';
import { defineEvent, type Delivery } from '../../../src/infra/outbox';

/**
 * Exercise 04: what the three answers (starter, solution, wrong-*) share. The shop announces each
 * order once; two consumers react to it, each on its own: loyalty awards points, mailing sends the
 * receipt. Both are idempotent through the same dedup, which is yours to write.
 */
export class OrderPlacedPayload {
  @IsUUID() orderId!: string;
  @IsInt() @Min(0) totalCents!: number;
}
export const OrderPlaced = defineEvent('shop.order-placed.v1', OrderPlacedPayload);

export const AWARD_POINTS = 'loyalty.award-points';
export const SEND_RECEIPT = 'mailing.send-receipt';

/**
 * What each consumer did, a row per time it did it: no unique key, so that points awarded twice
 * show as two rows.
 */
export const schema = `
  CREATE SCHEMA IF NOT EXISTS ex04;
  CREATE TABLE ex04.points (order_id uuid NOT NULL, points integer NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());
  CREATE TABLE ex04.receipts (order_id uuid NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());
`;

/**
 * The dedup both consumers use (lesson 002, technique 1): they ask `exists` first and skip the
 * message if it says so; otherwise they do their part and `record` it, in the same transaction.
 */
export interface ProcessedMessages {
  /** Whether the consumer of this delivery has already processed its message. */
  exists(delivery: Delivery): Promise<boolean>;
  /** Remembers that the consumer of this delivery processed its message. */
  record(delivery: Delivery): Promise<void>;
}

/** What your answer exports. */
export interface PerConsumerDedupAnswer {
  /** SQL that creates the table(s) your dedup keeps: what your migration would run. */
  schema: string;
  ProcessedMessages: Type<ProcessedMessages>;
}
