import { Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { CardGateway } from '../../../src/modules/billing/gateway/card-gateway';
import { voidOfFiledKey } from '../../../src/modules/billing/idempotency-keys';
import { VoidAuthorization } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';
import { implementation } from '../support/track';
import type { GatewayWithoutVoidByKey, QueryBeforeCompensating } from './exercise';

const answer = implementation<QueryBeforeCompensating>(__dirname);

/** The part of billing's void that this exercise hands to your answer (its own is the reference's). */
interface VoidOfFiled {
  voidWhatIsFiled(checkoutId: string, idempotencyKey: string): Promise<string | null>;
}

/**
 * Puts your `voidWhatIsFiled` into the real billing module: when its void finds no payment row of
 * ours and the gateway offers no void by key, your code decides what to release, through the app's
 * own HTTP client of the gateway service; billing carries out the rest (the lock, the tombstone,
 * the answer to the saga) in its own transaction. Loaded into the app beside AppModule;
 * EXERCISE_TARGET says which answer.
 */
@Module({})
export class QueryBeforeCompensatingWiring implements OnModuleInit {
  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    const gateway = this.moduleRef.get(CardGateway, { strict: false });
    if (gateway.voidsByKey) throw new Error('Exercise 16 needs CARD_GATEWAY_VOIDS_BY_KEY=false');
    // The branch is a private method of the use case: replaced on this instance only, and checked
    // to be there, so that a rename fails here rather than leaving the reference's code in place.
    const voidAuthorization = this.moduleRef.get(VoidAuthorization, { strict: false }) as unknown as VoidOfFiled;
    if (typeof voidAuthorization.voidWhatIsFiled !== 'function') {
      throw new Error('VoidAuthorization has no voidWhatIsFiled any more: exercise 16 cannot put your answer in');
    }
    voidAuthorization.voidWhatIsFiled = (checkoutId, idempotencyKey) => {
      const port: GatewayWithoutVoidByKey = {
        authorizationsFiledUnder: (reference) => gateway.authorizationsFiledUnder(reference),
        // Under the key billing's own void uses: every attempt of the compensation sends the same one.
        voidById: (authorizationId) =>
          gateway.void(voidOfFiledKey(idempotencyKey, authorizationId), { authorizationId }),
      };
      return answer.voidWhatIsFiled(checkoutId, port);
    };
  }
}
