import { Injectable } from '@nestjs/common';
import { CheckoutCoordinator } from '../core/checkout-coordinator';
import type { CheckoutRow } from '../database/checkouts.repository';
import { SagaRunner } from './saga.runner';

/** Orchestration: a saga, persisted with the checkout, sends the first command. */
@Injectable()
export class OrchestrationCoordinator extends CheckoutCoordinator {
  readonly mode = 'orchestration';

  constructor(private readonly runner: SagaRunner) {
    super();
  }

  start(checkout: CheckoutRow): Promise<void> {
    return this.runner.start(checkout);
  }
}
