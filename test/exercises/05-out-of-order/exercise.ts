import type { Type } from '@nestjs/common';
import { IsInt, IsUUID, Min } from 'class-validator';
import { defineEvent } from '../../../src/infra/outbox';

/**
 * Exercise 05: what the three answers (starter, solution, wrong-*) share. The plans module
 * announces what happens to a subscription; access keeps a projection of it, which says whether
 * the subscriber may watch. Each event carries the subscription's version: 1 for the first event
 * about it, one more for each next one.
 */
export class SubscriptionChangedPayload {
  @IsUUID() subscriptionId!: string;
  @IsInt() @Min(1) version!: number;
}
export const SubscriptionActivated = defineEvent('plans.subscription-activated.v1', SubscriptionChangedPayload);
export const SubscriptionCancelled = defineEvent('plans.subscription-cancelled.v1', SubscriptionChangedPayload);

/** The consumers your projection declares, one per event (`@Consumer(ON_ACTIVATED)`...). */
export const ON_ACTIVATED = 'access.on-subscription-activated';
export const ON_CANCELLED = 'access.on-subscription-cancelled';

/** The projection: one row per subscription, its status and the version of the event that set it. */
export const schema = `
  CREATE SCHEMA ex05;
  CREATE TABLE ex05.subscriptions (
    subscription_id uuid PRIMARY KEY,
    status text NOT NULL CHECK (status IN ('active', 'cancelled')),
    version integer NOT NULL
  );
`;

/** What your answer exports: the provider that handles both events. */
export interface OutOfOrderAnswer {
  SubscriptionProjection: Type<unknown>;
}
