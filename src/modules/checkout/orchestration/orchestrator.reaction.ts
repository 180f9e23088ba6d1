import { Injectable } from '@nestjs/common';
import { Consumer, type Delivery, OnEvent } from '../../../infra/outbox';
import { ORCHESTRATED } from '../contracts';
import { type AnswerPayload, SAGA_ANSWER_TYPES, SAGA_ANSWERS } from './saga-answers';
import { Orchestrator } from './orchestrator';
import { StaleSagaWriteError } from './database/sagas.repository';

/** Tries of one answer when other instances keep writing the same saga. */
const STALE_WRITE_TRIES = 5;

/**
 * Orchestration: the orchestrator hears the participants' answers (the same events the
 * choreography uses, for orchestrated checkouts only) and hands each to the saga. When another
 * instance wrote the saga meanwhile (its deadline sweep, another answer), the answer is applied
 * again to the newer state, rather than failing the whole delivery: a refused write has written
 * nothing, so no savepoint is needed to undo it.
 */
@Injectable()
export class OrchestratorReaction {
  constructor(private readonly orchestrator: Orchestrator) {}

  @OnEvent(SAGA_ANSWER_TYPES)
  @Consumer('checkout.orchestrate', { where: ORCHESTRATED, role: 'orchestrator' })
  async onAnswer(payload: AnswerPayload, delivery: Delivery): Promise<void> {
    const answer = SAGA_ANSWERS.get(delivery.type)!(payload, delivery.headers);
    for (let tries = 1; ; tries += 1) {
      try {
        await this.orchestrator.handle(payload.checkoutId, answer, { result: payload, error: payload.error });
        return;
      } catch (error) {
        if (!(error instanceof StaleSagaWriteError) || tries >= STALE_WRITE_TRIES) throw error;
      }
    }
  }
}
