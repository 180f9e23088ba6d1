import { cancelMarginMs, decideIssue, decideReversal, type InvoiceState } from './invoice';

const DAY = 24 * 60 * 60_000;
const authorizedAt = new Date('2026-12-01T10:00:00Z');
const issued: InvoiceState = { status: 'issued', authorizedAt };
const after = (ms: number) => new Date(authorizedAt.getTime() + ms);

describe('An invoice', () => {
  it('is issued once: a second ask finds it, whatever became of it', () => {
    expect(decideIssue(undefined)).toEqual({ kind: 'issue' });
    expect(decideIssue(issued)).toEqual({ kind: 'already', status: 'issued' });
    expect(decideIssue({ ...issued, status: 'reversed' })).toEqual({ kind: 'already', status: 'reversed' });
  });

  describe('reversed by a refund', () => {
    it('is cancelled inside the window, with its margin left', () => {
      expect(decideReversal(issued, after(0), DAY)).toEqual({ kind: 'cancel' });
      expect(decideReversal(issued, after(DAY - cancelMarginMs(DAY) - 1), DAY)).toEqual({ kind: 'cancel' });
    });

    it('gets a return note once only the margin is left, and after the window', () => {
      expect(decideReversal(issued, after(DAY - cancelMarginMs(DAY)), DAY)).toEqual({ kind: 'return-note' });
      expect(decideReversal(issued, after(DAY + 1), DAY)).toEqual({ kind: 'return-note' });
      expect(decideReversal(issued, after(30 * DAY), DAY)).toEqual({ kind: 'return-note' });
    });

    it('keeps a margin of a tenth of the window, five minutes at most', () => {
      expect(cancelMarginMs(DAY)).toBe(5 * 60_000);
      expect(cancelMarginMs(2_000)).toBe(200);
      expect(decideReversal(issued, after(1_799), 2_000)).toEqual({ kind: 'cancel' });
      expect(decideReversal(issued, after(1_800), 2_000)).toEqual({ kind: 'return-note' });
    });

    it('is reversed once: a cancelled or reversed invoice stays as it is', () => {
      expect(decideReversal({ ...issued, status: 'cancelled' }, after(0), DAY)).toEqual({
        kind: 'already',
        status: 'cancelled',
      });
      expect(decideReversal({ ...issued, status: 'reversed' }, after(0), DAY)).toEqual({
        kind: 'already',
        status: 'reversed',
      });
    });

    it('has nothing to reverse when no invoice was issued', () => {
      expect(decideReversal(undefined, after(0), DAY)).toEqual({ kind: 'no-invoice' });
    });
  });
});
