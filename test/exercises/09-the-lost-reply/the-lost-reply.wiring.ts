import { Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AuthorizePayment } from '../../../src/modules/billing/authorize-payment/authorize-payment.use-case';
import { implementation } from '../support/track';
import type { TheLostReply } from './exercise';

const answer = implementation<TheLostReply>(__dirname);

/**
 * Puts your key into the real gateway call: billing's AuthorizePayment, the step that holds the
 * money, calls the card gateway with the key your `idempotencyKey` builds instead of the one the
 * saga sent. Loaded into the app (as its own process) beside AppModule; EXERCISE_TARGET says
 * which answer.
 */
@Module({})
export class TheLostReplyWiring implements OnModuleInit {
  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    const authorizePayment = this.moduleRef.get(AuthorizePayment, { strict: false });
    const execute = authorizePayment.execute.bind(authorizePayment);
    // The saga's command carries which send it is; the step's own interface does not name it.
    authorizePayment.execute = (command) => {
      const { attempt = 1 } = command as { attempt?: number };
      const call = {
        checkoutId: command.checkoutId,
        userId: command.userId,
        step: 'billing.authorize-payment' as const,
        attempt,
      };
      return execute({ ...command, idempotencyKey: answer.idempotencyKey(call) });
    };
  }
}
