import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { CREDIT_WALLET, MoneyDeposited, type MoneyDepositedPayload, WalletModule } from './exercise';

/**
 * A wrong answer people write: "every copy of a deposit has the same `delivery.aggregateId`, so
 * that is what I record in wallet.processed_messages, in the credit's transaction". The bank
 * announces deposits with the wallet as their aggregate: every copy shares it, and so does every
 * later deposit to the same wallet, which is then never credited.
 */
@Injectable()
export class CreditWallet {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MoneyDeposited.type)
  @Consumer(CREDIT_WALLET, { dedup: 'handler' })
  async handle(msg: MoneyDepositedPayload, delivery: Delivery): Promise<void> {
    const recorded = await this.txHost.tx.query<unknown[]>(
      `INSERT INTO wallet.processed_messages (message_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING message_id`,
      [delivery.aggregateId],
    );
    if (recorded.length === 0) return;
    await this.txHost.tx.query(`UPDATE wallet.wallets SET balance = balance + $2 WHERE id = $1`, [
      msg.walletId,
      msg.amount,
    ]);
  }
}

@Module({ imports: [WalletModule], providers: [CreditWallet] })
export class AnswerModule {}
