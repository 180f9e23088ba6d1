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
 * Exercise 05, a wrong answer people write: "the lesson says an old cancellation must not
 * overwrite a newer activation, so the cancellation checks the version". Only the cancellation
 * does: an old activation, delivered after the cancellation, still overwrites it, and a
 * subscriber who cancelled may watch again.
 */
@Injectable()
export class SubscriptionProjection {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(SubscriptionActivated.type)
  @Consumer(ON_ACTIVATED)
  async activated({ subscriptionId, version }: SubscriptionChangedPayload): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO ex05.subscriptions (subscription_id, status, version) VALUES ($1, 'active', $2)
       ON CONFLICT (subscription_id) DO UPDATE SET status = 'active', version = excluded.version`,
      [subscriptionId, version],
    );
  }

  @OnEvent(SubscriptionCancelled.type)
  @Consumer(ON_CANCELLED)
  async cancelled({ subscriptionId, version }: SubscriptionChangedPayload): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO ex05.subscriptions (subscription_id, status, version) VALUES ($1, 'cancelled', $2)
       ON CONFLICT (subscription_id) DO UPDATE SET status = 'cancelled', version = excluded.version
        WHERE ex05.subscriptions.version < excluded.version`,
      [subscriptionId, version],
    );
  }
}
