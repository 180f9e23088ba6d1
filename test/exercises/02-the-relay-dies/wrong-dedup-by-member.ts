import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer } from '../../../src/infra/outbox';
import { ClubModule, EXTEND_MEMBERSHIP, MembershipPaid, type MembershipPaidPayload } from './exercise';

/**
 * A wrong answer people write: "a duplicate is the same member paying for the same days again".
 * It does stop the relay's duplicate, and it also swallows a member's second, real payment (a
 * renewal): the key of a duplicate is the message's (or the payment's) identity, not what it says.
 */
@Injectable()
export class ExtendMembership {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MembershipPaid.type)
  @Consumer(EXTEND_MEMBERSHIP, { dedup: 'handler' })
  async extend(payment: MembershipPaidPayload): Promise<void> {
    const [seen] = await this.txHost.tx.query<unknown[]>(
      `SELECT 1 FROM club.extensions WHERE member_id = $1 AND days = $2`,
      [payment.memberId, payment.days],
    );
    if (seen) return;
    await this.txHost.tx.query(`INSERT INTO club.extensions (payment_id, member_id, days) VALUES ($1, $2, $3)`, [
      payment.paymentId,
      payment.memberId,
      payment.days,
    ]);
    await this.txHost.tx.query(`UPDATE club.members SET paid_days = paid_days + $2 WHERE id = $1`, [
      payment.memberId,
      payment.days,
    ]);
  }
}

@Module({ imports: [ClubModule], providers: [ExtendMembership] })
export class AnswerModule {}
