import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { DataSource } from 'typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { CREDIT_WALLET, MoneyDeposited, type MoneyDepositedPayload, WalletModule } from './exercise';

/**
 * A wrong answer people write: "the dedup record goes in the delivery's transaction, as the
 * lesson says; the credit I write with the DataSource, as I always do". `dataSource.query`
 * commits at once, on a connection of its own: when the worker dies before the delivery commits,
 * the record rolls back and the credit does not, and the delivery taken again credits it again.
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
    const recorded = await this.txHost.tx.query<unknown[]>(
      `INSERT INTO wallet.processed_messages (message_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING message_id`,
      [delivery.id],
    );
    if (recorded.length === 0) return;
    await this.dataSource.query(`UPDATE wallet.wallets SET balance = balance + $2 WHERE id = $1`, [
      msg.walletId,
      msg.amount,
    ]);
  }
}

@Module({ imports: [WalletModule], providers: [CreditWallet] })
export class AnswerModule {}
