import { Injectable, Module } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Consumer, type Delivery } from '../../../src/infra/outbox';
import { CREDIT_WALLET, MoneyDeposited, type MoneyDepositedPayload, WalletModule } from './exercise';

/**
 * A wrong answer people write: remember the handled ids in memory. Copies that reach this process
 * are caught; a copy that arrives after a restart (or at another replica) is credited again:
 * the memory died with the process, the money did not.
 */
@Injectable()
export class CreditWallet {
  private readonly seen = new Set<string>();

  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  @OnEvent(MoneyDeposited.type)
  @Consumer(CREDIT_WALLET, { dedup: 'handler' })
  async handle(msg: MoneyDepositedPayload, delivery: Delivery): Promise<void> {
    if (this.seen.has(delivery.id)) return;
    this.seen.add(delivery.id);
    await this.txHost.tx.query(`UPDATE wallet.wallets SET balance = balance + $2 WHERE id = $1`, [
      msg.walletId,
      msg.amount,
    ]);
  }
}

@Module({ imports: [WalletModule], providers: [CreditWallet] })
export class AnswerModule {}
