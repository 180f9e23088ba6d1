import type { InvoiceRow, InvoicesRepository } from '../database/invoices.repository';
import {
  CANCEL_WINDOW_CLOSED,
  FiscalAuthority,
  type FiscalDocument,
  INVOICE_CANCELLED,
  INVOICE_REVERSED,
} from '../invoicing/fiscal-authority';
import { ReverseInvoice } from './reverse-invoice.use-case';

const MINUTE = 60_000;
const note: FiscalDocument = {
  kind: 'return-note',
  id: 'rn-1',
  number: 'RN-0001',
  reference: 'c-1',
  authorizedAt: new Date().toISOString(),
  cancelledAt: null,
  invoiceId: 'inv-1',
};

/** An authority that answers as told, and remembers what it was asked. */
function authority(answers: { cancel?: string; returnNote?: string; listing?: FiscalDocument[] }) {
  const asked: string[] = [];
  const refusal = (reason: string) => ({ authorized: false as const, reason });
  const fake: FiscalAuthority = Object.assign(Object.create(FiscalAuthority.prototype), {
    issueInvoice: () => Promise.reject(new Error('not asked here')),
    cancelInvoice: async (key: string) => {
      asked.push(`cancel ${key}`);
      return answers.cancel ? refusal(answers.cancel) : { authorized: true, invoice: { ...note, kind: 'invoice' } };
    },
    issueReturnNote: async (key: string) => {
      asked.push(`return-note ${key}`);
      return answers.returnNote ? refusal(answers.returnNote) : { authorized: true, returnNote: note };
    },
    documentsFiledUnder: async () => {
      asked.push('look-up');
      return answers.listing ?? [];
    },
  });
  return { fake, asked };
}

function reverse(invoice: Partial<InvoiceRow> | undefined, answers: Parameters<typeof authority>[0]) {
  const row = invoice && ({ checkout_id: 'c-1', invoice_id: 'inv-1', number: 'NF-1', ...invoice } as InvoiceRow);
  const invoices = {
    lockByCheckout: async () => row,
    reverse: async (at: InvoiceRow, returnNote: FiscalDocument | null) => ({
      ...at,
      status: returnNote ? 'reversed' : 'cancelled',
      return_note_number: returnNote?.number ?? null,
    }),
  } as unknown as InvoicesRepository;
  const { fake, asked } = authority(answers);
  const useCase = new ReverseInvoice(invoices, fake, { cancelWindowMs: 60 * MINUTE });
  return useCase.execute({ checkoutId: 'c-1', idempotencyKey: 'k', reason: 'refund' }).then(
    (result) => ({ outcome: result.outcome, asked }),
    (error: Error) => ({ outcome: `threw: ${error.message}`, asked }),
  );
}

const issued = (ageMs: number): Partial<InvoiceRow> => ({
  status: 'issued',
  authorized_at: new Date(Date.now() - ageMs),
});

describe('Reversing an invoice on a refund', () => {
  it('cancels it inside the window', async () => {
    expect(await reverse(issued(MINUTE), {})).toEqual({ outcome: 'cancelled', asked: ['cancel k:cancel'] });
  });

  it('issues a return note after the window, without asking for a cancel', async () => {
    expect(await reverse(issued(61 * MINUTE), {})).toEqual({
      outcome: 'reversed',
      asked: ['return-note k:return-note'],
    });
  });

  it('issues a return note when the authority refuses the cancel as late', async () => {
    expect(await reverse(issued(MINUTE), { cancel: CANCEL_WINDOW_CLOSED })).toEqual({
      outcome: 'reversed',
      asked: ['cancel k:cancel', 'return-note k:return-note'],
    });
  });

  it('records a cancel when the return note is refused because the invoice is cancelled already', async () => {
    expect(await reverse(issued(61 * MINUTE), { returnNote: INVOICE_CANCELLED })).toEqual({
      outcome: 'cancelled',
      asked: ['return-note k:return-note'],
    });
  });

  it('looks the return note up when the cancel is refused because one reverses the invoice already', async () => {
    expect(await reverse(issued(MINUTE), { cancel: INVOICE_REVERSED, listing: [note] })).toEqual({
      outcome: 'reversed',
      asked: ['cancel k:cancel', 'look-up'],
    });
  });

  it('fails, to be retried, when the look-up lists no return note for the invoice', async () => {
    const { outcome } = await reverse(issued(MINUTE), { cancel: INVOICE_REVERSED, listing: [] });
    expect(outcome).toMatch(/^threw: the authority says inv-1 is reversed, and lists no return note/);
  });

  it('says the refusal it cannot act on', async () => {
    expect(await reverse(issued(MINUTE), { cancel: 'unknown-invoice' })).toEqual({
      outcome: 'refused',
      asked: ['cancel k:cancel'],
    });
  });

  it('asks nothing when the invoice is reversed already, or there is none', async () => {
    expect(await reverse({ ...issued(MINUTE), status: 'cancelled' }, {})).toEqual({ outcome: 'cancelled', asked: [] });
    expect(await reverse({ ...issued(MINUTE), status: 'reversed' }, {})).toEqual({ outcome: 'reversed', asked: [] });
    expect(await reverse(undefined, {})).toEqual({ outcome: 'no-invoice', asked: [] });
  });
});
