import { outgoing, type OutgoingMessage, type MessageContract } from '../../../infra/outbox';
import {
  AuthorizePaymentCommand,
  BILLING_STEPS,
  BillingStepFailed,
  CaptureDeclined,
  CapturePaymentCommand,
  InvoiceIssued,
  IssueInvoiceCommand,
  PaymentAuthorized,
  PaymentCaptured,
  PaymentDeclined,
  PaymentVoided,
  VoidAuthorizationCommand,
} from '../../billing/contracts';
import {
  AccessActivated,
  AccessGranted,
  AccessRefused,
  AccessRevoked,
  ActivateAccessCommand,
  CONTENT_STEPS,
  ContentStepFailed,
  GrantAccessCommand,
  RevokeAccessCommand,
} from '../../content/contracts';
import {
  BuyerRejected,
  BuyerVerified,
  IDENTITY_STEPS,
  IdentityStepFailed,
  VerifyUserCommand,
} from '../../identity/contracts';
import {
  NOTIFICATIONS_STEPS,
  NotificationsStepFailed,
  SendWelcomeEmailCommand,
  WelcomeEmailSent,
} from '../../notifications/contracts';
import { type PaymentMethod, type SagaCommandPayload, type StepFailedPayload, stepKey } from '../contracts';
import type { NewCheckout } from '../database/checkouts.repository';
import type { StepDefinition } from '../domain/checkout';

/** How the checkout asks a participant for a step: the command, and its payload for one checkout. */
export interface StepCommand<P extends object = object> {
  contract: MessageContract<P>;
  payload(base: SagaCommandPayload, checkout: NewCheckout, reason: string): P;
}

/** A command whose payload is what every step command carries, plus what `extra` adds. */
const ask = <P extends object>(
  contract: MessageContract<P>,
  extra: (checkout: NewCheckout, reason: string) => Omit<P, keyof SagaCommandPayload> = () =>
    ({}) as Omit<P, keyof SagaCommandPayload>,
): StepCommand =>
  ({
    contract,
    payload: (base, checkout, reason) => ({ ...base, ...extra(checkout, reason) }) as P,
  }) as StepCommand;

/** An answer that says why (a refusal, a compensation's event): the checkout keeps the reason. */
type Reasoned = MessageContract<{ checkoutId: string; reason: string }>;

/**
 * One step of the checkout, with the messages it takes and gives: the command that asks for it,
 * the event that says it was done, the one that refuses it (a definitive business "no"), and the
 * one that says the participant tried and failed. A compensable step has a compensation, asked
 * for and answered in the same way. Both coordination styles read their wiring from here.
 */
export interface CheckoutStepRow extends StepDefinition {
  command: StepCommand;
  done: MessageContract<{ checkoutId: string }>;
  refused?: Reasoned;
  failed: MessageContract<StepFailedPayload>;
  compensation?: { name: string; command: StepCommand; done: Reasoned };
}

const buyer = (checkout: NewCheckout) => ({ userId: checkout.user_id, planId: checkout.plan_id });
const because = (_checkout: NewCheckout, reason: string) => ({ reason });

/**
 * The checkout, as data: its steps in the order the pivot rule gives (cheap and reversible first,
 * then the irreversible capture, and after it only steps that cannot refuse), and the messages of
 * each.
 * Adding a step is adding its row here, in its place; the saga, the orchestrator's subscriptions
 * and answers, the choreography's progress, the step catalog and the operator's resume all follow.
 */
export const CHECKOUT_STEPS = [
  {
    name: IDENTITY_STEPS.verifyUser,
    class: 'verify',
    command: ask(VerifyUserCommand, (checkout) => ({ userId: checkout.user_id })),
    done: BuyerVerified,
    refused: BuyerRejected,
    failed: IdentityStepFailed,
  },
  {
    name: BILLING_STEPS.authorizePayment,
    class: 'compensable',
    command: ask(AuthorizePaymentCommand, (checkout) => ({
      ...buyer(checkout),
      paymentMethod: checkout.payment_method as PaymentMethod,
    })),
    done: PaymentAuthorized,
    refused: PaymentDeclined,
    failed: BillingStepFailed,
    compensation: {
      name: BILLING_STEPS.voidAuthorization,
      command: ask(VoidAuthorizationCommand, because),
      done: PaymentVoided,
    },
  },
  {
    name: CONTENT_STEPS.grantAccess,
    class: 'compensable',
    command: ask(GrantAccessCommand, buyer),
    done: AccessGranted,
    refused: AccessRefused,
    failed: ContentStepFailed,
    compensation: { name: CONTENT_STEPS.revokeAccess, command: ask(RevokeAccessCommand, because), done: AccessRevoked },
  },
  {
    name: BILLING_STEPS.capturePayment,
    class: 'pivot',
    command: ask(CapturePaymentCommand),
    done: PaymentCaptured,
    refused: CaptureDeclined,
    failed: BillingStepFailed,
  },
  // The capture lifts the grant's semantic lock: access becomes usable only once the money is taken,
  // and the email, last, never welcomes a buyer to access they cannot use yet (ADR 0052).
  {
    name: CONTENT_STEPS.activateAccess,
    class: 'retriable',
    command: ask(ActivateAccessCommand),
    done: AccessActivated,
    failed: ContentStepFailed,
  },
  // The invoice of the money taken: retried while the authority is down, never compensated by a
  // technical failure, before the welcome that tells the buyer its number (ADR 0107).
  {
    name: BILLING_STEPS.issueInvoice,
    class: 'retriable',
    waitsOutOutages: true,
    command: ask(IssueInvoiceCommand),
    done: InvoiceIssued,
    failed: BillingStepFailed,
  },
  {
    name: NOTIFICATIONS_STEPS.sendWelcomeEmail,
    class: 'retriable',
    command: ask(SendWelcomeEmailCommand, buyer),
    done: WelcomeEmailSent,
    failed: NotificationsStepFailed,
  },
] as const satisfies readonly CheckoutStepRow[];

export type ForwardStep = (typeof CHECKOUT_STEPS)[number]['name'];
export type CompensationStep = Extract<
  (typeof CHECKOUT_STEPS)[number],
  { compensation: object }
>['compensation']['name'];

const ROWS: readonly CheckoutStepRow[] = CHECKOUT_STEPS;

/** The forward steps, in order. */
export const FORWARD_STEPS = ROWS.map((row) => row.name) as readonly ForwardStep[];
/** The compensations, in the order they run: the reverse of the steps they undo. */
export const COMPENSATION_STEPS = ROWS.flatMap((row) =>
  row.compensation ? [row.compensation.name] : [],
).reverse() as readonly CompensationStep[];
/** Every step a checkout can be at, in the order it can get there. */
export const STEP_ORDER: readonly string[] = [...FORWARD_STEPS, ...COMPENSATION_STEPS];

/** The row of a forward step, or of the step a compensation undoes. */
export function rowOf(step: string): CheckoutStepRow {
  const row = ROWS.find((r) => r.name === step || r.compensation?.name === step);
  if (!row) throw new Error(`No step ${step} in the checkout's table`);
  return row;
}

/** The key of a step or of its compensation, which is the key of the step it undoes (`stepKey`). */
export const keyOfStep = (checkoutId: string, step: string): string => stepKey(checkoutId, rowOf(step).name);

/**
 * The command that asks a participant to carry out one step of a checkout (or its compensation),
 * under the step's idempotency key. The saga sends these; an operator resuming a stalled
 * choreography sends one too. Each participant answers it with the same events the choreography uses.
 */
export function stepCommand(checkout: NewCheckout, step: string, attempt: number, reason: string): OutgoingMessage {
  const row = rowOf(step);
  const { contract, payload } = row.name === step ? row.command : row.compensation!.command;
  const base = { checkoutId: checkout.id, idempotencyKey: keyOfStep(checkout.id, step), attempt };
  return outgoing(contract, payload(base, checkout, reason));
}
