import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { CREDIT_WALLET, MoneyDeposited, type MoneyDepositedPayload, WalletModule } from './exercise';

/**
 * Exercise 03, the wallet: the lesson's `balance += amount` consumer. See README.md for the story
 * and what "done" means; exercise.ts lists the tables you may use.
 *
 * `dedup: 'handler'` means every delivery reaches this method, duplicates included: making a
 * second copy harmless is this consumer's own job. It runs in the delivery's transaction:
 * `this.txHost.tx.query(...)` writes in it, and it commits when the method returns (or rolls back
 * when it throws). `delivery.id` is the message's id, the same on every copy.
 */
@Injectable()
export class CreditWallet {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MoneyDeposited.type)
  @Consumer(CREDIT_WALLET, { dedup: 'handler' })
  async handle(msg: MoneyDepositedPayload, delivery: Delivery): Promise<void> {
    // TODO: at-least-once delivery brings some deposits twice, sometimes both at once, sometimes
    // after a restart. Credit each deposit once. (The lesson shows two ways: try both.)
    void delivery;
    const [wallet] = await this.txHost.tx.query<Array<{ balance: number }>>(
      `SELECT balance FROM wallet.wallets WHERE id = $1`,
      [msg.walletId],
    );
    wallet.balance += msg.amount;
    await this.txHost.tx.query(`UPDATE wallet.wallets SET balance = $2 WHERE id = $1`, [msg.walletId, wallet.balance]);
  }
}

// The exercise runs your consumer in the wallet's module: nothing to change below.
@Module({ imports: [WalletModule], providers: [CreditWallet] })
export class AnswerModule {}
