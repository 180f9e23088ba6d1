import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsRegistry } from '../../../infra/metrics/metrics.registry';
import { OutboxPublisher } from '../../../infra/outbox';
import { ORCHESTRATED } from '../contracts';
import { CheckoutProgressRecorder } from '../core/checkout-progress';
import type { NewCheckout } from '../database/checkouts.repository';
import { CHECKOUT_STEPS } from '../core/checkout-steps';
import {
  compensationOf,
  isStale,
  isUndoing,
  newSaga,
  type Saga,
  type SagaDefinition,
  type SagaInput,
} from './domain/saga';
import { deadlineAfterMs } from './domain/saga.deadline';
import { decide, evolve } from './domain/saga.transitions';
import { factsOf } from './domain/saga.progress';
import { commandMessage } from './saga-commands';
import { STEP_ATTEMPT_HEADER, STEP_GENERATION_HEADER } from './saga-answers';
import { sagaConfig, type SagaConfig } from './saga.config';
import { isStaleSagaWrite, SagasRepository } from './database/sagas.repository';

/** What an input says, for the saga's log. */
export interface InputDetail {
  result?: unknown;
  error?: string;
}

/**
 * What runs the sagas, thin: it locks and loads a saga with its checkout, lets the pure `evolve`
 * say what the saga becomes and `decide` which commands that calls for, and in the caller's
 * transaction writes the new state (checking the version it read), its log entry and the
 * checkout's status in one statement, then sends the commands through the outbox. The write and
 * the commands go in one write with the COMMIT, and commit together or not at all.
 */
@Injectable()
export class Orchestrator {
  private readonly logger = new Logger('Orchestrator');
  private readonly staleWrites: Counter;
  private readonly commandsSent: Counter<'command' | 'kind'>;
  private readonly staleAnswers: Counter<'answer'>;
  /** The checkout's table of steps, under the configured policy. */
  private readonly definition: SagaDefinition;

  constructor(
    private readonly sagas: SagasRepository,
    private readonly progress: CheckoutProgressRecorder,
    private readonly outbox: OutboxPublisher,
    @Inject(sagaConfig.KEY) config: SagaConfig,
    registry: MetricsRegistry,
  ) {
    this.definition = { table: CHECKOUT_STEPS, policy: config.policy };
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
    this.staleAnswers = new Counter({
      name: 'saga_stale_answers_total',
      help: "Refusals and failures ignored because a send from before an operator's retry was their cause",
      labelNames: ['answer'],
      registers: [registry],
    });
  }

  /** Creates the saga of a new checkout and sends its first command. */
  async start(checkout: NewCheckout): Promise<void> {
    await this.move(checkout, { saga: newSaga(CHECKOUT_STEPS) }, { type: 'start' });
  }

  /**
   * Feeds the saga of `checkoutId` one input, holding the saga's lock until the caller's
   * transaction ends: another instance moving the same saga waits, then reads what this one wrote.
   * Answers that change nothing (late, repeated) are dropped.
   */
  async handle(checkoutId: string, input: SagaInput, detail: InputDetail = {}): Promise<Saga | undefined> {
    const stored = await this.sagas.lockAndLoad(checkoutId);
    if (!stored) {
      this.logger.warn(`No saga ${checkoutId}: ${input.type} ignored`);
      return undefined;
    }
    return this.move(stored.checkout, { saga: stored.saga, version: stored.version }, input, detail);
  }

  /**
   * Lets the pure `evolve` say what the input does to the saga and `decide` which commands that
   * calls for, then writes it all in one statement (the saga over the version read, its steps and
   * the answer, the log entry, the checkout's progress) and sends the commands through the outbox.
   */
  private async move(
    checkout: NewCheckout,
    read: { saga: Saga; version?: number },
    input: SagaInput,
    detail: InputDetail = {},
  ): Promise<Saga> {
    const before = read.saga;
    const saga = evolve(before, input, this.definition);
    const commands = decide(input, before, this.definition);
    if (isStale(before, input) && 'generation' in input) {
      this.staleAnswers.inc({ answer: input.type });
      this.logger.warn(
        `Saga ${checkout.id}: ${input.type} of ${input.step} from generation ${input.generation} ignored: ` +
          `the saga is in generation ${before.generation} since an operator's retry`,
      );
    }
    if (saga === before) return saga;
    // What a step answered is kept on its row; a compensation's answer only leaves its error, if any.
    const undoing = 'undoing' in input && input.undoing;
    const { written } = await this.sagas.save(checkout.id, saga, {
      readVersion: read.version,
      deadlineAfterMs: deadlineAfterMs(saga, this.definition),
      answer: 'step' in input ? { step: input.step, ...(undoing ? { error: detail.error } : detail) } : undefined,
      log: {
        input: input.type,
        from: before.status,
        to: saga.status,
        step: isUndoing(saga) ? compensationOf(saga.current, CHECKOUT_STEPS) : saga.current,
        command: commands[0]?.executes,
        attempt: commands[0]?.attempt,
        detail: 'reason' in input ? { reason: input.reason } : 'error' in input ? { error: input.error } : undefined,
      },
      progress: this.progress.after(checkout, factsOf(before, saga, CHECKOUT_STEPS)),
    });
    // Known once the COMMIT is answered: the transaction's own failure reaches its caller.
    written.then(
      (checkout) => checkout && this.progress.written(checkout),
      (error: unknown) => isStaleSagaWrite(error) && this.staleWrites.inc(),
    );
    for (const command of commands) {
      // The same idempotency key for every send of a step and for its compensation.
      const { contract, payload } = commandMessage(checkout, command);
      // Which send this is, and of which generation, travels back on the answer, so that a late
      // answer to an earlier send, or to a send from before an operator's retry, is told apart.
      const headers = {
        ...ORCHESTRATED,
        [STEP_ATTEMPT_HEADER]: String(command.attempt),
        [STEP_GENERATION_HEADER]: String(saga.generation),
      };
      await this.outbox.publish(contract, payload, { aggregateId: checkout.id, headers });
      this.commandsSent.inc({ command: command.executes, kind: command.kind });
    }
    return saga;
  }
}
