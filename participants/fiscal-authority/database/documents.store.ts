import { randomUUID } from 'node:crypto';
import { ParticipantStore, ParticipantTransaction } from '../../common/database/store';
import type { AuthorityResponse, FiscalDocument, InvoiceOnFile, Operation } from '../domain/documents';
import type { InvoiceBody } from '../requests';

/**
 * The authority's memory, in its own database: every document it authorised, and every response
 * it gave (given again for the same operation and key).
 */
export class DocumentsStore extends ParticipantStore<DocumentsTransaction> {
  constructor(databaseUrl: string) {
    super(databaseUrl, 'fiscal-authority', (db) => new DocumentsTransaction(db));
  }

  /** Every document filed under a merchant's reference, in the order the authority numbered them. */
  async filedUnder(reference: string): Promise<FiscalDocument[]> {
    const { rows } = await this.pool.query<DocumentRow>(
      `SELECT ${COLUMNS} FROM fiscal_authority.documents WHERE reference = $1 ORDER BY number`,
      [reference],
    );
    return rows.map(toDocument);
  }
}

/** The authority's memory within one transaction. */
export class DocumentsTransaction extends ParticipantTransaction {
  async responseTo(operation: Operation, key: string): Promise<AuthorityResponse | undefined> {
    const { rows } = await this.db.query<{ response: AuthorityResponse }>(
      `SELECT response FROM fiscal_authority.requests WHERE operation = $1 AND idempotency_key = $2`,
      [operation, key],
    );
    return rows[0]?.response;
  }

  async remember(operation: Operation, key: string, response: AuthorityResponse): Promise<void> {
    await this.db.query(
      `INSERT INTO fiscal_authority.requests (operation, idempotency_key, response) VALUES ($1, $2, $3)`,
      [operation, key, JSON.stringify(response)],
    );
  }

  async issueInvoice(request: InvoiceBody): Promise<FiscalDocument> {
    const { rows } = await this.db.query<DocumentRow>(
      `INSERT INTO fiscal_authority.documents (id, kind, reference, buyer, description, amount_cents, currency)
       VALUES ($1, 'invoice', $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [
        `inv_${randomUUID()}`,
        request.reference,
        request.buyer,
        request.description,
        request.amountCents,
        request.currency,
      ],
    );
    return toDocument(rows[0]);
  }

  /**
   * The invoice of that id, with whether the database's clock (the transaction's `now()`) is still
   * within `windowSeconds` of its authorization, and the return note that reverses it, if any.
   */
  async invoiceOnFile(invoiceId: string, windowSeconds: number): Promise<InvoiceOnFile | undefined> {
    const { rows } = await this.db.query<DocumentRow & { within_window: boolean }>(
      `SELECT ${COLUMNS}, now() <= authorized_at + make_interval(secs => $2) AS within_window
         FROM fiscal_authority.documents WHERE id = $1 AND kind = 'invoice'`,
      [invoiceId, windowSeconds],
    );
    if (!rows[0]) return undefined;
    const notes = await this.db.query<DocumentRow>(
      `SELECT ${COLUMNS} FROM fiscal_authority.documents WHERE invoice_id = $1 AND kind = 'return-note'`,
      [invoiceId],
    );
    return {
      invoice: toDocument(rows[0]),
      withinWindow: rows[0].within_window,
      returnNote: notes.rows[0] && toDocument(notes.rows[0]),
    };
  }

  async cancel(invoiceId: string, reason: string): Promise<FiscalDocument> {
    const { rows } = await this.db.query<DocumentRow>(
      `UPDATE fiscal_authority.documents SET cancelled_at = now(), cancellation_reason = $2
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [invoiceId, reason],
    );
    return toDocument(rows[0]);
  }

  async issueReturnNote(invoice: FiscalDocument, reason: string): Promise<FiscalDocument> {
    const { rows } = await this.db.query<DocumentRow>(
      `INSERT INTO fiscal_authority.documents (id, kind, reference, invoice_id, reason)
       VALUES ($1, 'return-note', $2, $3, $4) RETURNING ${COLUMNS}`,
      [`ret_${randomUUID()}`, invoice.reference, invoice.id, reason],
    );
    return toDocument(rows[0]);
  }
}

type DocumentRow = Pick<FiscalDocument, 'kind' | 'id' | 'number' | 'reference'> & {
  authorized_at: Date;
  cancelled_at: Date | null;
  invoice_id: string | null;
};

const COLUMNS = 'kind, id, number::text AS number, reference, authorized_at, cancelled_at, invoice_id';

const toDocument = (row: DocumentRow): FiscalDocument => {
  const authorised = { id: row.id, number: row.number, reference: row.reference };
  const authorizedAt = row.authorized_at.toISOString();
  return row.kind === 'invoice'
    ? {
        ...authorised,
        authorizedAt,
        kind: 'invoice',
        cancelledAt: row.cancelled_at?.toISOString() ?? null,
        invoiceId: null,
      }
    : { ...authorised, authorizedAt, kind: 'return-note', cancelledAt: null, invoiceId: row.invoice_id! };
};
