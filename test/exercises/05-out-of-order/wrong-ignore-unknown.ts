import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer } from '../../../src/infra/outbox';
import {
  ON_ACTIVATED,
  ON_CANCELLED,
  SubscriptionActivated,
  SubscriptionCancelled,
  type SubscriptionChangedPayload,
} from './exercise';

/**
 * Exercise 05, a wrong answer people write: "an event changes the row only if it is newer than
 * the row; and a cancellation of a subscription I have no row for has nothing to cancel". It
 * has: the cancellation is the newest thing known about that subscription. Dropped, it leaves no
 * version behind, and the old activation, arriving after it, creates an active subscription.
 */
@Injectable()
export class SubscriptionProjection {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(SubscriptionActivated.type)
  @Consumer(ON_ACTIVATED)
  async activated({ subscriptionId, version }: SubscriptionChangedPayload): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO ex05.subscriptions (subscription_id, status, version) VALUES ($1, 'active', $2)
       ON CONFLICT (subscription_id) DO UPDATE SET status = 'active', version = excluded.version
        WHERE ex05.subscriptions.version < excluded.version`,
      [subscriptionId, version],
    );
  }

  @OnEvent(SubscriptionCancelled.type)
  @Consumer(ON_CANCELLED)
  async cancelled({ subscriptionId, version }: SubscriptionChangedPayload): Promise<void> {
    await this.txHost.tx.query(
      `UPDATE ex05.subscriptions SET status = 'cancelled', version = $2
        WHERE subscription_id = $1 AND version < $2`,
      [subscriptionId, version],
    );
  }
}
