import { Injectable } from '@nestjs/common';
import { Mode } from '../core/mode';
import type { NewCheckout } from '../database/checkouts.repository';
import { Orchestrator } from './orchestrator';

/** Orchestration: a saga, persisted with the checkout, sends the first command. */
@Injectable()
export class OrchestrationMode extends Mode {
  readonly name = 'orchestration';

  constructor(private readonly orchestrator: Orchestrator) {
    super();
  }

  start(checkout: NewCheckout): Promise<void> {
    return this.orchestrator.start(checkout);
  }
}
