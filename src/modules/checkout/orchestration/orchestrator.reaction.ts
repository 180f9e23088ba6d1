import { Injectable } from '@nestjs/common';
import { Propagation, TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { type Delivery, OnMessage } from '../../../infra/outbox';
import {
  BillingStepFailed,
  CaptureDeclined,
  PaymentAuthorized,
  PaymentCaptured,
  PaymentDeclined,
  PaymentVoided,
} from '../../billing/contracts';
import {
  AccessActivated,
  AccessGranted,
  AccessRefused,
  AccessRevoked,
  ContentStepFailed,
} from '../../content/contracts';
import { BuyerRejected, BuyerVerified, IdentityStepFailed } from '../../identity/contracts';
import { NotificationsStepFailed, WelcomeEmailSent } from '../../notifications/contracts';
import { ORCHESTRATED, type StepFailedPayload } from '../contracts';
import type { ForwardStep } from '../domain/checkout';
import { StaleSagaWriteError } from '../database/sagas.repository';
import { CHECKOUT_SAGA, type SagaInput } from '../domain/checkout.saga';
import { SagaRunner } from './saga.runner';

type Reply = { checkoutId: string; reason?: string } & Partial<StepFailedPayload>;

/** What each participant's answer means to the saga. */
const INPUTS: Record<string, (reply: Reply) => SagaInput> = {
  [BuyerVerified.type]: () => ({ type: 'done', step: 'identity.verify-user' }),
  [BuyerRejected.type]: (r) => ({ type: 'refused', step: 'identity.verify-user', reason: r.reason! }),
  [PaymentAuthorized.type]: () => ({ type: 'done', step: 'billing.authorize-payment' }),
  [PaymentDeclined.type]: (r) => ({ type: 'refused', step: 'billing.authorize-payment', reason: r.reason! }),
  [AccessGranted.type]: () => ({ type: 'done', step: 'content.grant-access' }),
  [AccessRefused.type]: (r) => ({ type: 'refused', step: 'content.grant-access', reason: r.reason! }),
  [PaymentCaptured.type]: () => ({ type: 'done', step: 'billing.capture-payment' }),
  [CaptureDeclined.type]: (r) => ({ type: 'refused', step: 'billing.capture-payment', reason: r.reason! }),
  [AccessActivated.type]: () => ({ type: 'done', step: 'content.activate-access' }),
  [WelcomeEmailSent.type]: () => ({ type: 'done', step: 'notifications.send-welcome-email' }),
  [PaymentVoided.type]: () => ({ type: 'done', step: 'billing.authorize-payment', undoing: true }),
  [AccessRevoked.type]: () => ({ type: 'done', step: 'content.grant-access', undoing: true }),
  ...Object.fromEntries(
    [IdentityStepFailed, BillingStepFailed, ContentStepFailed, NotificationsStepFailed].map((contract) => [
      contract.type,
      (r: Reply): SagaInput => failedInput(r.step!, r.error!, r.attempt!),
    ]),
  ),
};

/** A failure names the action or the compensation that failed; the saga knows steps by their action. */
function failedInput(executed: string, error: string, attempt: number): SagaInput {
  const compensated = CHECKOUT_SAGA.find((d) => d.compensation === executed);
  return compensated
    ? { type: 'failed', step: compensated.step, undoing: true, error, attempt }
    : { type: 'failed', step: executed as ForwardStep, error, attempt };
}

/** Tries of one answer when other instances keep writing the same saga. */
const STALE_WRITE_TRIES = 5;

/**
 * Orchestration: the orchestrator hears the participants' answers (the same events the
 * choreography uses, for orchestrated checkouts only) and hands each to the saga. When another
 * instance wrote the saga meanwhile (its deadline sweep, another answer), the answer is applied
 * again, in a savepoint, to the newer state, rather than failing the whole delivery.
 */
@Injectable()
export class OrchestratorReaction {
  constructor(
    private readonly runner: SagaRunner,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  @OnMessage(
    [
      BuyerVerified,
      BuyerRejected,
      IdentityStepFailed,
      PaymentAuthorized,
      PaymentDeclined,
      PaymentCaptured,
      CaptureDeclined,
      PaymentVoided,
      BillingStepFailed,
      AccessGranted,
      AccessRefused,
      AccessRevoked,
      AccessActivated,
      ContentStepFailed,
      WelcomeEmailSent,
      NotificationsStepFailed,
    ],
    { consumer: 'checkout.orchestrate', where: ORCHESTRATED, role: 'orchestrator' },
  )
  async onAnswer(reply: Reply, delivery: Delivery): Promise<void> {
    const input = INPUTS[delivery.type](reply);
    for (let tries = 1; ; tries += 1) {
      try {
        await this.txHost.withTransaction(Propagation.Nested, () =>
          this.runner.handle(reply.checkoutId, input, { result: reply, error: reply.error }),
        );
        return;
      } catch (error) {
        if (!(error instanceof StaleSagaWriteError) || tries >= STALE_WRITE_TRIES) throw error;
      }
    }
  }
}
