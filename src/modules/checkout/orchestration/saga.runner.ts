import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsRegistry } from '../../../infra/metrics/metrics.registry';
import { OutboxPublisher } from '../../../infra/outbox';
import { ORCHESTRATED } from '../contracts';
import { CheckoutProgressRecorder } from '../core/checkout-progress';
import { stepCommand } from '../core/checkout-steps';
import { CheckoutsRepository, type CheckoutRow } from '../database/checkouts.repository';
import type { Saga, SagaCommand, SagaInput } from './domain/checkout.saga';
import { CHECKOUT_SAGA } from './saga-answers';
import { sagaConfig, type SagaConfig } from './saga.config';
import { SagasRepository, StaleSagaWriteError } from './sagas.repository';

const { newSaga, evolve, decide, deadlineAfterMs, compensationOf, factsOf } = CHECKOUT_SAGA;

/** What an input says, for the saga's log. */
export interface InputDetail {
  result?: unknown;
  error?: string;
}

/**
 * The thin part of the orchestrator: it loads a saga, lets the pure `evolve` and `decide` say
 * what happens, and in the caller's transaction writes the new state (checking the version it
 * read), logs the transition, sends the commands through the outbox and updates the checkout's
 * status. Everything commits together or not at all.
 */
@Injectable()
export class SagaRunner {
  private readonly logger = new Logger('SagaRunner');
  private readonly staleWrites: Counter;
  private readonly commandsSent: Counter<'command' | 'kind'>;

  constructor(
    private readonly sagas: SagasRepository,
    private readonly checkouts: CheckoutsRepository,
    private readonly progress: CheckoutProgressRecorder,
    private readonly outbox: OutboxPublisher,
    @Inject(sagaConfig.KEY) private readonly config: SagaConfig,
    registry: MetricsRegistry,
  ) {
    this.staleWrites = new Counter({
      name: 'saga_stale_writes_total',
      help: 'Saga writes refused because another instance had written the saga since it was read',
      registers: [registry],
    });
    this.commandsSent = new Counter({
      name: 'saga_commands_total',
      help: 'Commands the orchestrator sent, by command and kind (action or compensation)',
      labelNames: ['command', 'kind'],
      registers: [registry],
    });
  }

  /** Creates the saga of a new checkout and sends its first command. */
  async start(checkout: CheckoutRow): Promise<void> {
    const before = newSaga();
    const input: SagaInput = { type: 'start' };
    const saga = evolve(before, input, this.config.policy);
    await this.sagas.insert(checkout.id, saga, deadlineAfterMs(saga, this.config.policy));
    await this.apply(checkout, before, saga, input, decide(before, input, this.config.policy));
  }

  /**
   * Feeds the saga of `checkoutId` one input. Answers that change nothing (late, repeated) are
   * dropped. Throws StaleSagaWriteError when another instance wrote the saga meanwhile: the
   * caller's transaction then rolls back, and the input is handled again on the newer state.
   */
  async handle(checkoutId: string, input: SagaInput, detail: InputDetail = {}): Promise<Saga | undefined> {
    const stored = await this.sagas.load(checkoutId);
    const checkout = await this.checkouts.find(checkoutId);
    if (!stored || !checkout) {
      this.logger.warn(`No saga ${checkoutId}: ${input.type} ignored`);
      return undefined;
    }
    const saga = evolve(stored.saga, input, this.config.policy);
    if (saga === stored.saga) return saga;
    try {
      await this.sagas.save(checkoutId, saga, stored.version, deadlineAfterMs(saga, this.config.policy));
    } catch (error) {
      if (error instanceof StaleSagaWriteError) this.staleWrites.inc();
      throw error;
    }
    // What a step answered is kept on its row; a compensation's answer only leaves its error, if any.
    if ('step' in input) {
      const undoing = 'undoing' in input && input.undoing;
      await this.sagas.recordAnswer(checkoutId, input.step, undoing ? { error: detail.error } : detail);
    }
    await this.apply(checkout, stored.saga, saga, input, decide(stored.saga, input, this.config.policy));
    return saga;
  }

  private async apply(checkout: CheckoutRow, before: Saga, after: Saga, input: SagaInput, commands: SagaCommand[]) {
    for (const command of commands) {
      // The same idempotency key for every send of a step and for its compensation.
      const { contract, payload } = stepCommand(checkout, command.executes, command.attempt, after.reason ?? 'undone');
      await this.outbox.publish(contract, payload, { aggregateId: checkout.id, headers: ORCHESTRATED });
      this.commandsSent.inc({ command: command.executes, kind: command.kind });
    }
    await this.sagas.log(checkout.id, {
      input: input.type,
      from: before.status,
      to: after.status,
      step: after.undoing ? compensationOf(after.current) : after.current,
      command: commands[0]?.executes,
      attempt: commands[0]?.attempt,
      detail: 'reason' in input ? { reason: input.reason } : 'error' in input ? { error: input.error } : undefined,
    });
    for (const fact of factsOf(before, after)) await this.progress.record(checkout.id, fact);
  }
}
