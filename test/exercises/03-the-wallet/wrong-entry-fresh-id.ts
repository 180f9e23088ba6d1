import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomUUID } from 'node:crypto';
import { Consumer } from '../../../src/infra/outbox';
import { CREDIT_WALLET, MoneyDeposited, type MoneyDepositedPayload, WalletModule } from './exercise';

/**
 * A wrong answer people write: "the lesson's second way: the credit is an entry of a ledger,
 * inserted with ON CONFLICT DO NOTHING". Each entry gets a fresh id, so nothing ever conflicts:
 * the copy inserts a second entry, and the deposit is credited twice. The key of the entry must
 * be something every copy of the deposit shares.
 */
@Injectable()
export class CreditWallet {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MoneyDeposited.type)
  @Consumer(CREDIT_WALLET, { dedup: 'handler' })
  async handle(msg: MoneyDepositedPayload): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO wallet.entries (id, wallet_id, amount) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
      [randomUUID(), msg.walletId, msg.amount],
    );
  }
}

@Module({ imports: [WalletModule], providers: [CreditWallet] })
export class AnswerModule {}
