import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { ClubModule, EXTEND_MEMBERSHIP, MembershipPaid, type MembershipPaidPayload } from './exercise';

/**
 * A wrong answer people write: "I keep the ids of the messages I handled in a Set, and skip a
 * message I have seen". The relay's copy comes after the relay died, and the relay died with its
 * process: the restarted consumer has an empty Set, and the copy adds the days a second time.
 */
@Injectable()
export class ExtendMembership {
  private readonly handled = new Set<string>();

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MembershipPaid.type)
  @Consumer(EXTEND_MEMBERSHIP, { dedup: 'handler' })
  async extend(payment: MembershipPaidPayload, delivery: Delivery): Promise<void> {
    if (this.handled.has(delivery.id)) return;
    await this.txHost.tx.query(`UPDATE club.members SET paid_days = paid_days + $2 WHERE id = $1`, [
      payment.memberId,
      payment.days,
    ]);
    this.handled.add(delivery.id);
  }
}

@Module({ imports: [ClubModule], providers: [ExtendMembership] })
export class AnswerModule {}
