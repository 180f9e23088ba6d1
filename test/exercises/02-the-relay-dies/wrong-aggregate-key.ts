import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { ClubModule, EXTEND_MEMBERSHIP, MembershipPaid, type MembershipPaidPayload } from './exercise';

/**
 * A wrong answer people write: "`delivery.aggregateId` is an id that every copy shares, so I
 * record it in club.extensions and add the days only when the row is new". Every copy shares it,
 * and so does every other payment of the member: billing announces payments with the member as
 * their aggregate. The copy is stopped, and so is the renewal.
 */
@Injectable()
export class ExtendMembership {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MembershipPaid.type)
  @Consumer(EXTEND_MEMBERSHIP, { dedup: 'handler' })
  async extend(payment: MembershipPaidPayload, delivery: Delivery): Promise<void> {
    const recorded = await this.txHost.tx.query<unknown[]>(
      `INSERT INTO club.extensions (payment_id, member_id, days) VALUES ($1, $2, $3)
       ON CONFLICT (payment_id) DO NOTHING RETURNING payment_id`,
      [delivery.aggregateId, payment.memberId, payment.days],
    );
    if (recorded.length === 0) return;
    await this.txHost.tx.query(`UPDATE club.members SET paid_days = paid_days + $2 WHERE id = $1`, [
      payment.memberId,
      payment.days,
    ]);
  }
}

@Module({ imports: [ClubModule], providers: [ExtendMembership] })
export class AnswerModule {}
