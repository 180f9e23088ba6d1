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
 * Exercise 05, the reference answer (lesson 002, technique 3 with versions): an event changes the
 * row only if it is newer than the event the row reflects. The check is in the write itself, so
 * two deliveries racing for the same row cannot both pass it.
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

  /** A stale event (an older version than the row's) changes nothing. */
  private async save({ subscriptionId, version }: SubscriptionChangedPayload, status: string): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO ex05.subscriptions (subscription_id, status, version) VALUES ($1, $2, $3)
       ON CONFLICT (subscription_id) DO UPDATE SET status = excluded.status, version = excluded.version
        WHERE ex05.subscriptions.version < excluded.version`,
      [subscriptionId, status, version],
    );
  }
}
