import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer } from '../../../src/infra/outbox';
import { ClubModule, EXTEND_MEMBERSHIP, MembershipPaid, type MembershipPaidPayload } from './exercise';

/**
 * Exercise 02, another right answer: the consumer takes every copy (`dedup: 'handler'`) and
 * accommodates the duplicate itself, by the payment's own identity. It records the payment in
 * club.extensions and adds the days only when that row is new, both in the delivery's
 * transaction: a second copy of the payment finds the row, a second payment does not.
 */
@Injectable()
export class ExtendMembership {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MembershipPaid.type)
  @Consumer(EXTEND_MEMBERSHIP, { dedup: 'handler' })
  async extend(payment: MembershipPaidPayload): Promise<void> {
    await this.txHost.tx.query(
      `WITH applied AS (
         INSERT INTO club.extensions (payment_id, member_id, days) VALUES ($1, $2, $3)
         ON CONFLICT (payment_id) DO NOTHING RETURNING member_id, days)
       UPDATE club.members m SET paid_days = m.paid_days + a.days FROM applied a WHERE m.id = a.member_id`,
      [payment.paymentId, payment.memberId, payment.days],
    );
  }
}

@Module({ imports: [ClubModule], providers: [ExtendMembership] })
export class AnswerModule {}
