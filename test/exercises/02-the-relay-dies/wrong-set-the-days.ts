import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer } from '../../../src/infra/outbox';
import { ClubModule, EXTEND_MEMBERSHIP, MembershipPaid, type MembershipPaidPayload } from './exercise';

/**
 * A wrong answer people write: "adding is what breaks on a copy, so I set the days instead of
 * adding them: setting 30 twice still gives 30". The copy is harmless now, and so is the renewal:
 * a member who paid twice for 30 days has 30, not 60. Setting is idempotent only when the message
 * carries the whole state; a payment carries a change.
 */
@Injectable()
export class ExtendMembership {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MembershipPaid.type)
  @Consumer(EXTEND_MEMBERSHIP, { dedup: 'handler' })
  async extend(payment: MembershipPaidPayload): Promise<void> {
    await this.txHost.tx.query(`UPDATE club.members SET paid_days = $2 WHERE id = $1`, [
      payment.memberId,
      payment.days,
    ]);
  }
}

@Module({ imports: [ClubModule], providers: [ExtendMembership] })
export class AnswerModule {}
