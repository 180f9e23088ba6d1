import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer } from '../../../src/infra/outbox';
import { ClubModule, EXTEND_MEMBERSHIP, MembershipPaid, type MembershipPaidPayload } from './exercise';

/**
 * Exercise 02, the reference answer: accommodate the duplicate, where it can be accommodated.
 *
 * The duplicate is not the relay's bug: between "pushed" and "marked pushed" there is no
 * transaction, so a relay that dies there either pushes again (a duplicate) or would have to
 * never push again (a lost message). It pushes again. This consumer lets the transport's inbox
 * absorb it (the default, `dedup: 'transport'`): the inbox records (message id, consumer) in the
 * same transaction as the UPDATE below, so the second copy finds the record and does nothing.
 */
@Injectable()
export class ExtendMembership {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MembershipPaid.type)
  @Consumer(EXTEND_MEMBERSHIP)
  async extend(payment: MembershipPaidPayload): Promise<void> {
    await this.txHost.tx.query(`UPDATE club.members SET paid_days = paid_days + $2 WHERE id = $1`, [
      payment.memberId,
      payment.days,
    ]);
  }
}

@Module({ imports: [ClubModule], providers: [ExtendMembership] })
export class AnswerModule {}
