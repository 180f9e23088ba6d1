import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { CREDIT_WALLET, MoneyDeposited, type MoneyDepositedPayload, WalletModule } from './exercise';

/**
 * Exercise 03, second way: a naturally idempotent effect (the lesson's technique 2). The credit is
 * not "add to a number" but "this entry exists", keyed by the message's id: the second copy's
 * INSERT meets the primary key and does nothing. No dedup table; the balance is the sum of the
 * entries (wallet.balances).
 */
@Injectable()
export class CreditWallet {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MoneyDeposited.type)
  @Consumer(CREDIT_WALLET, { dedup: 'handler' })
  async handle(msg: MoneyDepositedPayload, delivery: Delivery): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO wallet.entries (id, wallet_id, amount) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
      [delivery.id, msg.walletId, msg.amount],
    );
  }
}

@Module({ imports: [WalletModule], providers: [CreditWallet] })
export class AnswerModule {}
