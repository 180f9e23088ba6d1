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
 * Exercise 05, a wrong answer people write: "I remember the newest version I applied for each
 * subscription, and skip an event older than it". Right while the process lives; the old event
 * waits a minute for its retry, and an app restarted in that minute (a deploy) has forgotten
 * every version: the late cancellation is applied over the comeback.
 */
@Injectable()
export class SubscriptionProjection {
  private readonly newest = new Map<string, number>();

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

  private async save({ subscriptionId, version }: SubscriptionChangedPayload, status: string): Promise<void> {
    if ((this.newest.get(subscriptionId) ?? 0) > version) return; // an older event: skip it
    await this.txHost.tx.query(
      `INSERT INTO ex05.subscriptions (subscription_id, status, version) VALUES ($1, $2, $3)
       ON CONFLICT (subscription_id) DO UPDATE SET status = excluded.status, version = excluded.version`,
      [subscriptionId, status, version],
    );
    this.newest.set(subscriptionId, version);
  }
}
