import type { FiscalDocument } from '../invoicing/fiscal-authority';
import { invoicesIn } from './filed-invoices';

const document = (overrides: Partial<FiscalDocument>): FiscalDocument => ({
  kind: 'invoice',
  id: 'inv_1',
  number: '1',
  reference: 'checkout-1',
  authorizedAt: '2026-12-06T00:00:00.000Z',
  cancelledAt: null,
  invoiceId: null,
  ...overrides,
});

describe("The invoices in a fiscal authority's listing", () => {
  it('when nothing was filed, then no invoice and none standing', () => {
    expect(invoicesIn([])).toEqual({ invoices: 0, standing: 0 });
  });

  it('when one invoice was authorised, then it stands', () => {
    expect(invoicesIn([document({})])).toEqual({ invoices: 1, standing: 1 });
  });

  it('when it was cancelled, or a return note reverses it, then it is counted and no longer stands', () => {
    expect(invoicesIn([document({ cancelledAt: '2026-12-06T00:00:01.000Z' })])).toEqual({ invoices: 1, standing: 0 });
    expect(
      invoicesIn([document({}), document({ kind: 'return-note', id: 'rn_1', number: '2', invoiceId: 'inv_1' })]),
    ).toEqual({ invoices: 1, standing: 0 });
  });

  it('when two invoices were authorised and one reversed, then both are counted and one stands', () => {
    const second = document({ id: 'inv_2', number: '3' });
    const note = document({ kind: 'return-note', id: 'rn_1', number: '2', invoiceId: 'inv_1' });

    expect(invoicesIn([document({}), second, note])).toEqual({ invoices: 2, standing: 1 });
  });
});
