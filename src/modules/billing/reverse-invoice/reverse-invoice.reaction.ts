import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent, OutboxPublisher } from '../../../infra/outbox';
import { InvoiceCancelled, InvoiceReversed, PaymentRefunded, type PaymentRefundedPayload } from '../contracts';
import { reverseInvoiceKey } from '../idempotency-keys';
import { ReverseInvoice } from './reverse-invoice.use-case';

/**
 * A refund, in either mode, reverses the checkout's invoice: cancelled inside the authority's
 * window, reversed by a return note after it. An authority that does not answer, or refuses,
 * fails the delivery: it is retried, and in the end a dead letter is a person's to resolve. A
 * checkout with no invoice has nothing to reverse.
 */
@Injectable()
export class ReverseInvoiceReaction {
  constructor(
    private readonly reverseInvoice: ReverseInvoice,
    private readonly outbox: OutboxPublisher,
  ) {}

  @OnEvent(PaymentRefunded.type)
  @Consumer('billing.reverse-invoice')
  async onPaymentRefunded({ checkoutId }: PaymentRefundedPayload): Promise<void> {
    const result = await this.reverseInvoice.execute({
      checkoutId,
      idempotencyKey: reverseInvoiceKey(checkoutId),
      reason: 'the payment was refunded',
    });
    if (result.outcome === 'refused') {
      throw new Error(`The fiscal authority refused to reverse the invoice of ${checkoutId}: ${result.reason}`);
    }
    if (result.outcome === 'no-invoice' || !result.isNew) return;
    const { invoice } = result;
    await this.outbox.publish(
      result.outcome === 'cancelled' ? InvoiceCancelled : InvoiceReversed,
      {
        checkoutId,
        invoiceId: invoice.invoice_id,
        number: invoice.number,
        ...(invoice.return_note_number ? { returnNoteNumber: invoice.return_note_number } : {}),
      },
      { aggregateId: checkoutId },
    );
  }
}
