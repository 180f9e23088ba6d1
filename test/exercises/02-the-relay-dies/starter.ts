import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { ClubModule, EXTEND_MEMBERSHIP, MembershipPaid, type MembershipPaidPayload } from './exercise';

/**
 * Exercise 02, the relay dies between push and mark: the consumer that adds paid days to a
 * membership. See README.md for the story and what "done" means.
 *
 * The handler runs in a database transaction that the transport opened for this delivery:
 * `this.txHost.tx.query(...)` writes in it. `delivery.id` is the message's id, the same on every
 * copy of one message; `payload.paymentId` is the payment's.
 */
@Injectable()
export class ExtendMembership {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  // `dedup: 'handler'`: this consumer tells the transport "give me every copy, duplicates
  // included, I deal with them". Does it?
  @OnEvent(MembershipPaid.type)
  @Consumer(EXTEND_MEMBERSHIP, { dedup: 'handler' })
  async extend(payment: MembershipPaidPayload, delivery: Delivery): Promise<void> {
    // TODO: the relay may deliver one payment twice (it pushed it, then died before marking it
    // pushed). A second copy of a payment must add nothing; a second payment must add its days.
    void delivery;
    await this.txHost.tx.query(`UPDATE club.members SET paid_days = paid_days + $2 WHERE id = $1`, [
      payment.memberId,
      payment.days,
    ]);
  }
}

// The exercise runs your consumer inside the club: nothing to change below.
@Module({ imports: [ClubModule], providers: [ExtendMembership] })
export class AnswerModule {}
