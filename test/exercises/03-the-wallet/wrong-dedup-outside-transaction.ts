import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { DataSource } from 'typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { CREDIT_WALLET, MoneyDeposited, type MoneyDepositedPayload, WalletModule } from './exercise';

/**
 * A wrong answer people write: a dedup table, but the record is written on its own
 * (`this.dataSource.query` commits at once), outside the transaction of the credit. When the
 * process dies between the two commits, the record says "handled" and the credit never happened:
 * the redelivery is skipped, and the deposit is lost.
 */
@Injectable()
export class CreditWallet {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly dataSource: DataSource,
  ) {}

  @OnEvent(MoneyDeposited.type)
  @Consumer(CREDIT_WALLET, { dedup: 'handler' })
  async handle(msg: MoneyDepositedPayload, delivery: Delivery): Promise<void> {
    const recorded = await this.dataSource.query<unknown[]>(
      `INSERT INTO wallet.processed_messages (message_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING message_id`,
      [delivery.id],
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
