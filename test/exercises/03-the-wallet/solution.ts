import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { CREDIT_WALLET, MoneyDeposited, type MoneyDepositedPayload, WalletModule } from './exercise';

/**
 * Exercise 03, first way: a dedup record in the effect's transaction (the lesson's technique 1).
 * The message's id goes into wallet.processed_messages in the same transaction as the credit:
 * both commit, or neither, so there is no moment at which the money moved and the record is
 * missing (or the reverse). Recording first, with ON CONFLICT, also settles two copies at once:
 * the second INSERT waits for the first transaction and then finds its row.
 * (See solution-natural.ts for the second way.)
 */
@Injectable()
export class CreditWallet {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MoneyDeposited.type)
  @Consumer(CREDIT_WALLET, { dedup: 'handler' })
  async handle(msg: MoneyDepositedPayload, delivery: Delivery): Promise<void> {
    const recorded = await this.txHost.tx.query<unknown[]>(
      `INSERT INTO wallet.processed_messages (message_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING message_id`,
      [delivery.id],
    );
    if (recorded.length === 0) return; // handled before: this copy changes nothing
    await this.txHost.tx.query(`UPDATE wallet.wallets SET balance = balance + $2 WHERE id = $1`, [
      msg.walletId,
      msg.amount,
    ]);
  }
}

@Module({ imports: [WalletModule], providers: [CreditWallet] })
export class AnswerModule {}
