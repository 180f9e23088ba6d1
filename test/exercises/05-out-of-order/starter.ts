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
 * Exercise 05, your answer: the access module's projection of subscriptions. Each event arrives
 * once (the transport dedups), but not necessarily in the order it happened: a delivery that
 * fails is retried later, and the events after it do not wait.
 */
@Injectable()
export class SubscriptionProjection {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(SubscriptionActivated.type)
  @Consumer(ON_ACTIVATED)
  async activated(event: SubscriptionChangedPayload): Promise<void> {
    await this.save(event, 'active');
  }

  @OnEvent(SubscriptionCancelled.type)
  @Consumer(ON_CANCELLED)
  async cancelled(event: SubscriptionChangedPayload): Promise<void> {
    await this.save(event, 'cancelled');
  }

  // TODO: an event older than the one the row already reflects must not overwrite it.
  private async save({ subscriptionId, version }: SubscriptionChangedPayload, status: string): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO ex05.subscriptions (subscription_id, status, version) VALUES ($1, $2, $3)
       ON CONFLICT (subscription_id) DO UPDATE SET status = excluded.status, version = excluded.version`,
      [subscriptionId, status, version],
    );
  }
}
