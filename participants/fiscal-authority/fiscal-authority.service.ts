import { DocumentsStore, type DocumentsTransaction } from './database/documents.store';
import {
  type AuthorityResponse,
  cancellationRefusal,
  type InvoiceOnFile,
  type Operation,
  returnNoteRefusal,
  UNKNOWN_INVOICE,
} from './domain/documents';
import type { InvoiceBody } from './requests';

/**
 * Where a lab turns the next requests into rejections. Outside a lab nothing does: the business
 * code asks, and the answer is no.
 */
export interface Rejections {
  take(operation: Operation): boolean;
}

/** A lab's rejection, kept for its key as any refusal is. */
export const INJECTED_REJECTION = 'injected-rejection';

/** What the authority decided about one request, and whether it keeps it for the key. */
interface Decision {
  response: AuthorityResponse;
  /** A request about an invoice the authority does not know is not remembered. */
  remembered: boolean;
}

/**
 * The fiscal authority, as a tax office that authorises invoices (a SEFAZ) is one: every call
 * carries an idempotency key, and the same operation and key always get the same response without
 * a second document. An invoice is cancelled within the window from its authorization, by the
 * database's clock; after it, or instead, a return note reverses it, one per invoice. Each
 * document is filed under the merchant's reference.
 */
export class FiscalAuthorityService {
  constructor(
    private readonly store: DocumentsStore,
    private readonly cancelWindowSeconds: number,
    private readonly rejections: Rejections = { take: () => false },
  ) {}

  issueInvoice(key: string, request: InvoiceBody): Promise<AuthorityResponse> {
    return this.once('invoice', key, async (tx) => ({
      response: { authorized: true, invoice: await tx.issueInvoice(request) },
      remembered: true,
    }));
  }

  cancelInvoice(key: string, invoiceId: string, reason: string): Promise<AuthorityResponse> {
    return this.onInvoice('cancellation', key, invoiceId, async (tx, onFile) => {
      const refusal = cancellationRefusal(onFile);
      if (refusal) return { authorized: false, reason: refusal };
      const invoice = onFile.invoice.cancelledAt ? onFile.invoice : await tx.cancel(invoiceId, reason);
      return { authorized: true, invoice };
    });
  }

  issueReturnNote(key: string, invoiceId: string, reason: string): Promise<AuthorityResponse> {
    return this.onInvoice('return-note', key, invoiceId, async (tx, onFile) => {
      const refusal = returnNoteRefusal(onFile);
      if (refusal) return { authorized: false, reason: refusal };
      return { authorized: true, returnNote: onFile.returnNote ?? (await tx.issueReturnNote(onFile.invoice, reason)) };
    });
  }

  /** An operation on one invoice: operations on it take their turn, and an unknown one is refused unremembered. */
  private onInvoice(
    operation: Operation,
    key: string,
    invoiceId: string,
    decide: (tx: DocumentsTransaction, onFile: InvoiceOnFile) => Promise<AuthorityResponse>,
  ): Promise<AuthorityResponse> {
    return this.once(operation, key, async (tx) => {
      await tx.lock(`invoice:${invoiceId}`);
      const onFile = await tx.invoiceOnFile(invoiceId, this.cancelWindowSeconds);
      if (!onFile) return { response: { authorized: false, reason: UNKNOWN_INVOICE }, remembered: false };
      return { response: await decide(tx, onFile), remembered: true };
    });
  }

  /**
   * The first response to (operation, key) is kept; every later call gets it back. Calls with one
   * key take their turn. A lab's rejection comes before the effect: nothing is written but the answer.
   */
  private async once(
    operation: Operation,
    key: string,
    decide: (tx: DocumentsTransaction) => Promise<Decision>,
  ): Promise<AuthorityResponse> {
    return this.store.once(
      `${operation}:${key}`,
      (tx) => tx.responseTo(operation, key),
      async (tx) => {
        const decision = this.rejections.take(operation)
          ? { response: { authorized: false as const, reason: INJECTED_REJECTION }, remembered: true }
          : await decide(tx);
        if (decision.remembered) await tx.remember(operation, key, decision.response);
        return decision.response;
      },
    );
  }
}
