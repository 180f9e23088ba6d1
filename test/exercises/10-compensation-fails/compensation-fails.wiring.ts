import { Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Faults } from '../../../src/infra/faults/faults';
import { VoidAuthorization } from '../../../src/modules/billing/void-authorization/void-authorization.use-case';
import { CardGateway } from '../../../src/modules/billing/gateway/card-gateway';
import { implementation } from '../support/track';
import type { CompensationThatFails } from './exercise';

const answer = implementation<CompensationThatFails>(__dirname);

/** The card gateway refuses every void while a `fail` rule is set here (PUT /admin/faults). */
export const GATEWAY_VOID_FAULT = 'gateway:void';

/**
 * Puts your `releaseHold` into the real billing module: its void (the compensation of the
 * authorization, in either mode) goes through your code, which calls the module's own void. And it
 * gives the card gateway a fault point of its own, so that a void can really fail at the gateway.
 * Loaded into the app beside AppModule; EXERCISE_TARGET says which answer.
 */
@Module({})
export class CompensationFailsWiring implements OnModuleInit {
  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    const faults = this.moduleRef.get(Faults, { strict: false });
    faults.declare({
      point: GATEWAY_VOID_FAULT,
      actions: ['fail'],
      description: 'the card gateway answers every void with an error: the hold stays on the card',
    });
    const gateway = this.moduleRef.get(CardGateway, { strict: false });
    const voidAtGateway = gateway.void.bind(gateway);
    gateway.void = async (key, target) => {
      if (faults.take(GATEWAY_VOID_FAULT) === 'fail') throw new Error('the card gateway is unavailable (503)');
      return voidAtGateway(key, target);
    };

    const voidAuthorization = this.moduleRef.get(VoidAuthorization, { strict: false });
    const release = voidAuthorization.execute.bind(voidAuthorization);
    voidAuthorization.execute = (command) => answer.releaseHold(command.checkoutId, () => release(command));
  }
}
