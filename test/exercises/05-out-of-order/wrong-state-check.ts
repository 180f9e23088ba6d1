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
 * Exercise 05, a wrong answer people write: a state check without the version ("already active?
 * then do nothing"; "cancel only what is active"). It makes a duplicate harmless, but it cannot
 * tell a stale event from a new one: a subscriber who cancelled and came back is active, so the
 * old cancellation, arriving late, finds an active subscription and cancels it.
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
        WHERE ex05.subscriptions.status <> 'active'`,
      [subscriptionId, version],
    );
  }

  @OnEvent(SubscriptionCancelled.type)
  @Consumer(ON_CANCELLED)
  async cancelled({ subscriptionId, version }: SubscriptionChangedPayload): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO ex05.subscriptions (subscription_id, status, version) VALUES ($1, 'cancelled', $2)
       ON CONFLICT (subscription_id) DO UPDATE SET status = 'cancelled', version = excluded.version
        WHERE ex05.subscriptions.status = 'active'`,
      [subscriptionId, version],
    );
  }
}
