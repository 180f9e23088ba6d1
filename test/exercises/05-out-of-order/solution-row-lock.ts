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
 * Exercise 05, another right answer: the version compared in code, on the row read with
 * `FOR UPDATE`, which holds it until the delivery commits, so that no other delivery for the same
 * subscription changes it in between. A subscription with no row yet has nothing to lock: two
 * first events racing both try the INSERT, the second fails on the primary key, and its delivery
 * is retried, and then finds the row.
 */
@Injectable()
export class SubscriptionProjection {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(SubscriptionActivated.type)
  @Consumer(ON_ACTIVATED)
  async activated(event: SubscriptionChangedPayload): Promise<void> {
    await this.apply(event, 'active');
  }

  @OnEvent(SubscriptionCancelled.type)
  @Consumer(ON_CANCELLED)
  async cancelled(event: SubscriptionChangedPayload): Promise<void> {
    await this.apply(event, 'cancelled');
  }

  private async apply({ subscriptionId, version }: SubscriptionChangedPayload, status: string): Promise<void> {
    const [row] = await this.txHost.tx.query<Array<{ version: number }>>(
      `SELECT version FROM ex05.subscriptions WHERE subscription_id = $1 FOR UPDATE`,
      [subscriptionId],
    );
    if (!row) {
      await this.txHost.tx.query(
        `INSERT INTO ex05.subscriptions (subscription_id, status, version) VALUES ($1, $2, $3)`,
        [subscriptionId, status, version],
      );
      return;
    }
    if (row.version >= version) return; // the row already reflects this event or a newer one
    await this.txHost.tx.query(`UPDATE ex05.subscriptions SET status = $2, version = $3 WHERE subscription_id = $1`, [
      subscriptionId,
      status,
      version,
    ]);
  }
}
