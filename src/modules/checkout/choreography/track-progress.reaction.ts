import { Injectable } from '@nestjs/common';
import { Consumer, type Delivery, OnEvent } from '../../../infra/outbox';
import { CHOREOGRAPHED } from '../contracts';
import { CheckoutProgressRecorder } from '../core/checkout-progress';
import { type Payload, PROGRESS_FACTS, PROGRESS_TYPES } from './progress-facts';

/**
 * In a choreography no module directs the flow, the checkout included: it only listens to what
 * the participants announce and keeps its status read model up to date, the step it is in while
 * it runs, and its outcome, reading what each event means from the checkout's table of steps. Automation giving up (a dead letter) puts it in intervention.
 */
@Injectable()
export class TrackProgressReaction {
  constructor(private readonly progress: CheckoutProgressRecorder) {}

  @OnEvent(PROGRESS_TYPES)
  @Consumer('checkout.track-progress', { where: CHOREOGRAPHED })
  async onParticipantEvent(payload: Payload, delivery: Delivery): Promise<void> {
    await this.progress.record(payload.checkoutId ?? delivery.aggregateId, PROGRESS_FACTS.get(delivery.type)!(payload));
  }
}
