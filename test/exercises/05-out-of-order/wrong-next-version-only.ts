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
 * Exercise 05, a wrong answer people write: "events come numbered, so I apply only the one that
 * follows the row's version, and drop any other as out of order". A version that skips one is
 * dropped though it is the newest (v3 while v2 waits for its retry), and the old one, arriving
 * last, is the one that follows: the late cancellation is applied, the comeback is lost.
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

  private async save({ subscriptionId, version }: SubscriptionChangedPayload, status: string): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO ex05.subscriptions (subscription_id, status, version) VALUES ($1, $2, $3)
       ON CONFLICT (subscription_id) DO UPDATE SET status = excluded.status, version = excluded.version
        WHERE ex05.subscriptions.version + 1 = excluded.version`,
      [subscriptionId, status, version],
    );
  }
}
