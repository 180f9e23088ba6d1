import { Module, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InvoicesRepository } from '../../../src/modules/billing/database/invoices.repository';
import { FiscalAuthority } from '../../../src/modules/billing/invoicing/fiscal-authority';
import { invoicingConfig, type InvoicingConfig } from '../../../src/modules/billing/invoicing/invoicing.config';
import {
  type ReversalOutcome,
  ReverseInvoice,
} from '../../../src/modules/billing/reverse-invoice/reverse-invoice.use-case';
import { implementation } from '../support/track';
import type { AuthorityForReversal, TimeBoundCompensation } from './exercise';

const answer = implementation<TimeBoundCompensation>(__dirname);

/**
 * Billing's clock as the answer is given it: the machine's, set back by `behindMs` when the spec
 * plants a clock that runs behind the authority's (the authority keeps its own, its database's).
 */
export const billingClock = { behindMs: 0 };

/**
 * Puts your `reverseInvoice` into the real billing module: when a refund reaches billing's
 * reaction (`billing.reverse-invoice`), the use case locks the checkout's invoice as production
 * does, and, when our records say it still stands, your code reverses it at the fiscal authority
 * service, through the app's own HTTP client, under the keys production derives from the refund's.
 * Billing records what you resolve with and the reaction announces it; your throw fails the
 * delivery, as the product's refusal does. Loaded into the app beside AppModule; EXERCISE_TARGET
 * says which answer.
 */
@Module({})
export class TimeBoundCompensationWiring implements OnModuleInit {
  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    const find = <T>(token: abstract new (...args: never[]) => T): T => this.moduleRef.get(token, { strict: false });
    const invoices = find(InvoicesRepository);
    const authority = find(FiscalAuthority);
    const reverseInvoice = find(ReverseInvoice);
    const { cancelWindowMs } = this.moduleRef.get<InvoicingConfig>(invoicingConfig.KEY, { strict: false });

    reverseInvoice.execute = async ({ checkoutId, idempotencyKey, reason }): Promise<ReversalOutcome> => {
      const invoice = await invoices.lockByCheckout(checkoutId);
      if (!invoice) return { outcome: 'no-invoice' };
      // Recorded already (a copy of a refund whose reversal committed): asked of nobody, announced once.
      if (invoice.status !== 'issued') {
        return { outcome: invoice.status === 'cancelled' ? 'cancelled' : 'reversed', invoice, isNew: false };
      }
      const port: AuthorityForReversal = {
        cancel: () => authority.cancelInvoice(`${idempotencyKey}:cancel`, invoice.invoice_id, reason),
        issueReturnNote: () => authority.issueReturnNote(`${idempotencyKey}:return-note`, invoice.invoice_id, reason),
        documentsFiledUnder: () => authority.documentsFiledUnder(checkoutId),
      };
      const reversal = await answer.reverseInvoice(
        { checkoutId, invoiceId: invoice.invoice_id, authorizedAt: new Date(invoice.authorized_at) },
        port,
        { now: new Date(Date.now() - billingClock.behindMs), windowMs: cancelWindowMs },
      );
      const returnNote = reversal.by === 'return-note' ? reversal.returnNote : null;
      return {
        outcome: returnNote ? 'reversed' : 'cancelled',
        invoice: await invoices.reverse(invoice, returnNote),
        isNew: true,
      };
    };
  }
}
