import { outgoing } from '../../../infra/outbox';
import type { CommandStep } from '../../../infra/steps';
import { BILLING_STEPS, BillingStepFailed, InvoiceIssued } from '../contracts';
import type { IssueInvoiceInput, IssueOutcome } from './issue-invoice.use-case';

/**
 * Invoicing the money taken, after the pivot: announced as issued. It has no "no": an authority
 * that refuses is thrown like one that is down, so the step is retried and in the end a person
 * looks at it; the sale is never undone for a missing invoice.
 */
export const issueInvoiceStep: CommandStep<IssueInvoiceInput, IssueOutcome> = {
  name: BILLING_STEPS.issueInvoice,
  answer: ({ checkoutId }, result) => {
    if (result.outcome === 'refused') {
      throw new Error(`The fiscal authority refused the invoice of ${checkoutId}: ${result.reason}`);
    }
    const { invoice, buyer } = result;
    return outgoing(InvoiceIssued, {
      checkoutId,
      invoiceId: invoice.invoice_id,
      number: invoice.number,
      userId: buyer.userId,
      planId: buyer.planId,
    });
  },
  isNew: (result) => result.outcome === 'issued' && result.isNew,
  failure: BillingStepFailed,
};
