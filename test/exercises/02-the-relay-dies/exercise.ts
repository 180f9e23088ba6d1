import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IsInt, IsUUID } from 'class-validator';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DatabaseModule } from '../../../src/infra/database/database.module';
import { defineEvent, OutboxPublisher } from '../../../src/infra/outbox';

/**
 * Exercise 02's world: a club whose members pay for days of membership. Billing confirms each
 * payment with an event, through the outbox; your consumer (starter.ts) adds the days.
 */

export class MembershipPaidPayload {
  @IsUUID() paymentId!: string;
  @IsUUID() memberId!: string;
  @IsInt() days!: number;
}
export const MembershipPaid = defineEvent('club.membership-paid.v1', MembershipPaidPayload);

/** The consumer's name: the exercise watches its deliveries by it. */
export const EXTEND_MEMBERSHIP = 'club.extend-membership';

class CreateClubSchema1795990002000 implements MigrationInterface {
  name = 'CreateClubSchema1795990002000';
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SCHEMA club`);
    await db.query(`CREATE TABLE club.members (id uuid PRIMARY KEY, paid_days integer NOT NULL DEFAULT 0)`);
    // For an answer that wants to remember which payments it applied.
    await db.query(`CREATE TABLE club.extensions (
      payment_id uuid PRIMARY KEY, member_id uuid NOT NULL, days integer NOT NULL)`);
  }
  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP SCHEMA club CASCADE`);
  }
}

/** Billing's side: a confirmed payment is announced in the transaction that records it. */
@Injectable()
export class Billing {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxPublisher,
  ) {}

  confirm(payment: MembershipPaidPayload): Promise<string> {
    return this.txHost.withTransaction(() =>
      this.outbox.publish(MembershipPaid, payment, { aggregateId: payment.memberId }),
    );
  }
}

@Module({
  imports: [DatabaseModule.forFeature({ migrations: [CreateClubSchema1795990002000] })],
  providers: [Billing],
  exports: [Billing],
})
export class ClubModule {}
