import { Injectable } from '@nestjs/common';
import { Consumer, type Delivery, OnEvent } from '../../../infra/outbox';
import { ORCHESTRATED } from '../contracts';
import { type AnswerPayload, SAGA_ANSWER_TYPES, SAGA_ANSWERS } from './saga-answers';
import { Orchestrator } from './orchestrator';

/**
 * Orchestration: the orchestrator hears the participants' answers (the same events the
 * choreography uses, for orchestrated checkouts only) and hands each to the saga. Another
 * instance moving the same saga (its deadline sweep, another answer) is waited for: the saga is
 * locked from its read to the commit. The saga drops an answer it has heard (it changes nothing),
 * so it takes repeats itself (`dedup: 'handler'`): on the local bus, its inbox record rides with
 * the saga's read rather than going first (ADR 0102).
 */
@Injectable()
export class OrchestratorReaction {
  constructor(private readonly orchestrator: Orchestrator) {}

  @OnEvent(SAGA_ANSWER_TYPES)
  @Consumer('checkout.orchestrate', { where: ORCHESTRATED, role: 'orchestrator', dedup: 'handler' })
  async onAnswer(payload: AnswerPayload, delivery: Delivery): Promise<void> {
    const answer = SAGA_ANSWERS.get(delivery.type)!(payload, delivery.headers);
    await this.orchestrator.handle(payload.checkoutId, answer, { result: payload, error: payload.error });
  }
}
