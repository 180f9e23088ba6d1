import { Injectable } from '@nestjs/common';
import {
  DeadLetterRedriven,
  type Delivery,
  MessageDeadLettered,
  type MessageDeadLetteredPayload,
  OnMessage,
} from '../../../infra/outbox';
import {
  CaptureDeclined,
  PaymentAuthorized,
  PaymentCaptured,
  PaymentDeclined,
  PaymentVoided,
} from '../../billing/contracts';
import { AccessActivated, AccessGranted, AccessRefused, AccessRevoked } from '../../content/contracts';
import { BuyerRejected, BuyerVerified } from '../../identity/contracts';
import { WelcomeEmailSent } from '../../notifications/contracts';
import { CHOREOGRAPHED } from '../contracts';
import type { ProgressFact } from '../domain/checkout';
import { CheckoutProgressRecorder } from './checkout-progress';

type Payload = { checkoutId?: string; aggregateId?: string; reason?: string } & Partial<MessageDeadLetteredPayload>;

/** What each participant's event means for the progress of a choreographed checkout. */
const FACTS: Record<string, (payload: Payload) => ProgressFact> = {
  [BuyerVerified.type]: () => ({ kind: 'reached', step: 'billing.authorize-payment' }),
  [BuyerRejected.type]: (p) => ({ kind: 'rejected', reason: p.reason! }),
  [PaymentAuthorized.type]: () => ({ kind: 'reached', step: 'content.grant-access' }),
  [PaymentDeclined.type]: (p) => ({ kind: 'failed', reason: p.reason! }),
  [AccessGranted.type]: () => ({ kind: 'reached', step: 'billing.capture-payment' }),
  [AccessRefused.type]: (p) => ({ kind: 'compensating', step: 'billing.void-authorization', reason: p.reason! }),
  [PaymentCaptured.type]: () => ({ kind: 'reached', step: 'content.activate-access' }),
  [AccessActivated.type]: () => ({ kind: 'reached', step: 'notifications.send-welcome-email' }),
  [CaptureDeclined.type]: (p) => ({ kind: 'compensating', step: 'content.revoke-access', reason: p.reason! }),
  [AccessRevoked.type]: (p) => ({ kind: 'compensating', step: 'billing.void-authorization', reason: p.reason! }),
  [PaymentVoided.type]: (p) => ({ kind: 'failed', reason: p.reason! }),
  [WelcomeEmailSent.type]: () => ({ kind: 'completed' }),
  [MessageDeadLettered.type]: (p) => ({
    kind: 'intervention',
    reason: `${p.consumer} gave up on ${p.type} after ${p.attempts} attempt(s): ${p.error}`,
  }),
  [DeadLetterRedriven.type]: () => ({ kind: 'resumed' }),
};

/**
 * In a choreography no module knows the whole flow, the checkout included: it only listens to
 * what the participants announce and keeps its status read model up to date, the step it is in
 * while it runs, and its outcome. Automation giving up (a dead letter) puts it in intervention.
 */
@Injectable()
export class TrackProgressReaction {
  constructor(private readonly progress: CheckoutProgressRecorder) {}

  @OnMessage(
    [
      BuyerVerified,
      BuyerRejected,
      PaymentAuthorized,
      PaymentDeclined,
      AccessGranted,
      AccessRefused,
      PaymentCaptured,
      AccessActivated,
      CaptureDeclined,
      AccessRevoked,
      PaymentVoided,
      WelcomeEmailSent,
      MessageDeadLettered,
      DeadLetterRedriven,
    ],
    { consumer: 'checkout.track-progress', where: CHOREOGRAPHED },
  )
  async onParticipantEvent(payload: Payload, delivery: Delivery): Promise<void> {
    await this.progress.record(payload.checkoutId ?? delivery.aggregateId, FACTS[delivery.type](payload));
  }
}
