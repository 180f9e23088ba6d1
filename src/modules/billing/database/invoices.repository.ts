import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../../../infra/context/message-context';
import { lockUntilCommit, sendWithNext } from '../../../infra/database/one-write';
import type { InvoiceState, InvoiceStatus } from '../domain/invoice';
import type { FiscalDocument } from '../invoicing/fiscal-authority';

export interface InvoiceRow {
  checkout_id: string;
  invoice_id: string;
  number: string;
  authorized_at: Date;
  amount_cents: number;
  currency: string;
  status: InvoiceStatus;
  return_note_id: string | null;
  return_note_number: string | null;
  /** The checkout process's correlation id, from the context that issued the invoice. */
  correlation_id: string | null;
}

/** What the domain's decisions read of an invoice row. */
export const toInvoiceState = (row: InvoiceRow): InvoiceState => ({
  status: row.status,
  authorizedAt: new Date(row.authorized_at),
});

/** The one invoice of each checkout, read under a lock on its checkout's invoicing. */
@Injectable()
export class InvoicesRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
  ) {}

  /**
   * The checkout's invoice, if any, after a lock on the checkout's invoicing that lasts until the
   * transaction ends: an issue and a reversal of one checkout take turns, even before the row exists.
   */
  async lockByCheckout(checkoutId: string): Promise<InvoiceRow | undefined> {
    const tx = this.txHost.tx;
    await lockUntilCommit(tx, `billing.invoices:${checkoutId}`);
    const [row] = await tx.query<InvoiceRow[]>(`SELECT * FROM billing.invoices WHERE checkout_id = $1`, [checkoutId]);
    return row;
  }

  /** Records the invoice the authority authorised; the statement goes with the transaction's next one. */
  async insert(checkoutId: string, invoice: FiscalDocument, amount: { cents: number; currency: string }) {
    const row: InvoiceRow = {
      checkout_id: checkoutId,
      invoice_id: invoice.id,
      number: invoice.number,
      authorized_at: new Date(invoice.authorizedAt),
      amount_cents: amount.cents,
      currency: amount.currency,
      status: 'issued',
      return_note_id: null,
      return_note_number: null,
      correlation_id: (this.cls.isActive() ? this.cls.get('correlationId') : undefined) ?? null,
    };
    await sendWithNext(
      this.txHost.tx,
      `INSERT INTO billing.invoices
         (checkout_id, invoice_id, number, authorized_at, amount_cents, currency, status, correlation_id)
       VALUES ($1, $2, $3, $4, $5, $6, 'issued', $7)`,
      [checkoutId, row.invoice_id, row.number, row.authorized_at, row.amount_cents, row.currency, row.correlation_id],
    );
    return row;
  }

  /** Marks the invoice cancelled, or reversed by `returnNote`. */
  async reverse(invoice: InvoiceRow, returnNote: FiscalDocument | null): Promise<InvoiceRow> {
    const status: InvoiceStatus = returnNote ? 'reversed' : 'cancelled';
    await sendWithNext(
      this.txHost.tx,
      `UPDATE billing.invoices
          SET status = $2, return_note_id = $3, return_note_number = $4, reversed_at = now()
        WHERE checkout_id = $1`,
      [invoice.checkout_id, status, returnNote?.id ?? null, returnNote?.number ?? null],
    );
    return {
      ...invoice,
      status,
      return_note_id: returnNote?.id ?? null,
      return_note_number: returnNote?.number ?? null,
    };
  }
}
