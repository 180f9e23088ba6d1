import { Injectable, Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IsInt, IsUUID } from 'class-validator';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DatabaseModule } from '../../../src/infra/database/database.module';
import { defineEvent, OutboxPublisher } from '../../../src/infra/outbox';

/**
 * Exercise 03's world: a bank announces deposits (through the outbox); your consumer (starter.ts)
 * credits the wallet. Three tables are there for whichever way your answer keeps the money:
 *
 * - wallet.wallets (id, balance): the balance as a number;
 * - wallet.entries (id PRIMARY KEY, wallet_id, amount): the balance as a ledger of entries;
 * - wallet.processed_messages (message_id PRIMARY KEY): the messages a consumer already handled.
 *
 * What the wallet holds is wallet.balances: `balance` plus the sum of its entries.
 */

export class MoneyDepositedPayload {
  @IsUUID() walletId!: string;
  @IsInt() amount!: number;
}
export const MoneyDeposited = defineEvent('bank.money-deposited.v1', MoneyDepositedPayload);

/** Your consumer's name: the exercise injects its faults by it. */
export const CREDIT_WALLET = 'wallet.credit';

class CreateWalletSchema1795990003000 implements MigrationInterface {
  name = 'CreateWalletSchema1795990003000';
  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE SCHEMA wallet`);
    await db.query(`CREATE TABLE wallet.wallets (id uuid PRIMARY KEY, balance integer NOT NULL DEFAULT 0)`);
    await db.query(`CREATE TABLE wallet.entries (
      id uuid PRIMARY KEY, wallet_id uuid NOT NULL REFERENCES wallet.wallets (id), amount integer NOT NULL)`);
    await db.query(`CREATE TABLE wallet.processed_messages (
      message_id uuid PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp())`);
    await db.query(`CREATE VIEW wallet.balances AS
      SELECT w.id AS wallet_id, w.balance + COALESCE((SELECT sum(e.amount) FROM wallet.entries e WHERE e.wallet_id = w.id), 0)::int AS balance
        FROM wallet.wallets w`);
  }
  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP SCHEMA wallet CASCADE`);
  }
}

/** The bank's side: a deposit is announced in the transaction that records it. */
@Injectable()
export class Bank {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxPublisher,
  ) {}

  /** Returns the message's id. */
  deposit(walletId: string, amount: number): Promise<string> {
    return this.txHost.withTransaction(() =>
      this.outbox.publish(MoneyDeposited, { walletId, amount }, { aggregateId: walletId }),
    );
  }
}

@Module({
  imports: [DatabaseModule.forFeature({ migrations: [CreateWalletSchema1795990003000] })],
  providers: [Bank],
  exports: [Bank],
})
export class WalletModule {}
