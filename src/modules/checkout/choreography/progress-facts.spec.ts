import { MessageDeadLettered } from '../../../infra/outbox';
import {
  CaptureDeclined,
  InvoiceIssued,
  PaymentAuthorized,
  PaymentCaptured,
  PaymentDeclined,
  PaymentVoided,
} from '../../billing/contracts';
import { AccessActivated, AccessGranted, AccessRefused, AccessRevoked } from '../../content/contracts';
import { BuyerRejected, BuyerVerified } from '../../identity/contracts';
import { WelcomeEmailSent } from '../../notifications/contracts';
import { PROGRESS_FACTS, PROGRESS_TYPES } from './progress-facts';

const reason = 'because';
const factOf = (type: string) => PROGRESS_FACTS.get(type)!({ reason });

describe("a choreographed checkout's progress, read from the table of steps", () => {
  it.each(
    [
      [BuyerVerified, { kind: 'reached', step: 'billing.authorize-payment' }],
      [PaymentAuthorized, { kind: 'reached', step: 'content.grant-access' }],
      [AccessGranted, { kind: 'reached', step: 'billing.capture-payment' }],
      [PaymentCaptured, { kind: 'reached', step: 'content.activate-access' }],
      [AccessActivated, { kind: 'reached', step: 'billing.issue-invoice' }],
      [InvoiceIssued, { kind: 'reached', step: 'notifications.send-welcome-email' }],
      [WelcomeEmailSent, { kind: 'completed' }],
      [BuyerRejected, { kind: 'rejected', reason }],
      [PaymentDeclined, { kind: 'failed', reason }],
      [AccessRefused, { kind: 'compensating', step: 'billing.void-authorization', reason }],
      [CaptureDeclined, { kind: 'compensating', step: 'content.revoke-access', reason }],
      [AccessRevoked, { kind: 'compensating', step: 'billing.void-authorization', reason }],
      [PaymentVoided, { kind: 'failed', reason }],
    ].map(([contract, fact]) => [(contract as { type: string }).type, fact] as const),
  )('when %s is heard, then the checkout learns %o', (type, fact) => {
    expect(factOf(type)).toEqual(fact);
  });

  it('when automation gives up on a message of it, then the checkout waits for a person', () => {
    const fact = PROGRESS_FACTS.get(MessageDeadLettered.type)!({
      consumer: 'billing.capture-payment',
      type: 'content.access-granted.v1',
      attempts: 3,
      error: 'gateway down',
    });

    expect(fact).toEqual({
      kind: 'intervention',
      reason: 'billing.capture-payment gave up on content.access-granted.v1 after 3 attempt(s): gateway down',
    });
  });

  it('listens to each event once', () => {
    const types = PROGRESS_TYPES;

    expect(new Set(types).size).toBe(types.length);
    expect(types).toHaveLength(15);
  });
});
