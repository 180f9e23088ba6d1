import { ParticipantClient } from '../../../infra/http/participant-client';
import {
  type CancellationResponse,
  FiscalAuthority,
  type FiscalDocument,
  type InvoiceRequest,
  type InvoiceResponse,
  type Refusal,
  type ReturnNoteResponse,
} from './fiscal-authority';
import type { FiscalAuthorityConfig } from './fiscal-authority.config';

/**
 * The fiscal authority service, over HTTP (ParticipantClient): the key in the Idempotency-Key
 * header, at most FISCAL_AUTHORITY_TIMEOUT_MS per request, and up to FISCAL_AUTHORITY_ATTEMPTS
 * requests on a 502, a 503 or a refused connection only. A timeout surfaces as the authority's
 * failure (callOutside('fiscal-authority', ...)), never as a refusal: the caller's next attempt
 * asks again under the same key, and gets the one document. A 4xx is never sent again.
 */
export class HttpFiscalAuthority extends FiscalAuthority {
  private readonly http: ParticipantClient;

  constructor(config: FiscalAuthorityConfig) {
    super();
    this.http = new ParticipantClient('fiscal-authority', config);
  }

  issueInvoice(key: string, request: InvoiceRequest): Promise<InvoiceResponse> {
    return this.http.post('invoices', key, request, (text) => answerIn(text, 'invoice'));
  }

  cancelInvoice(key: string, invoiceId: string, reason: string): Promise<CancellationResponse> {
    const path = `invoices/${encodeURIComponent(invoiceId)}/cancellations`;
    return this.http.post(path, key, { reason }, (text) => answerIn(text, 'invoice'));
  }

  issueReturnNote(key: string, invoiceId: string, reason: string): Promise<ReturnNoteResponse> {
    return this.http.post('return-notes', key, { invoiceId, reason }, (text) => answerIn(text, 'returnNote'));
  }

  documentsFiledUnder(reference: string): Promise<FiscalDocument[]> {
    return this.http.get(`references/${encodeURIComponent(reference)}/documents`, documentsIn);
  }
}

/**
 * The authority's answer, checked: the document under `field`, or a refusal with its reason. A
 * body that is neither is the authority's failure, not a refusal.
 */
function answerIn<Field extends 'invoice' | 'returnNote'>(
  text: string,
  field: Field,
): ({ authorized: true } & Record<Field, FiscalDocument>) | Refusal {
  const body = JSON.parse(text) as { authorized?: unknown; reason?: unknown } & Partial<Record<Field, unknown>>;
  if (body.authorized === false && typeof body.reason === 'string') return { authorized: false, reason: body.reason };
  if (body.authorized === true) {
    return { authorized: true, [field]: documentIn(body[field], text) } as { authorized: true } & Record<
      Field,
      FiscalDocument
    >;
  }
  throw new Error(`answered a body that is no decision: ${text.slice(0, 300)}`);
}

/** The authority's listing of a reference, checked: a body that is not one is its failure, never "none". */
function documentsIn(text: string): FiscalDocument[] {
  const body = JSON.parse(text) as { documents?: unknown };
  if (!Array.isArray(body.documents)) throw new Error(`answered a body that is no listing: ${text.slice(0, 300)}`);
  return body.documents.map((each: unknown) => documentIn(each, text));
}

const nullableString = (value: unknown): value is string | null => value === null || typeof value === 'string';

function documentIn(value: unknown, text: string): FiscalDocument {
  const document = (value ?? {}) as Partial<Record<keyof FiscalDocument, unknown>>;
  if (
    (document.kind === 'invoice' || document.kind === 'return-note') &&
    typeof document.id === 'string' &&
    typeof document.number === 'string' &&
    typeof document.reference === 'string' &&
    typeof document.authorizedAt === 'string' &&
    nullableString(document.cancelledAt) &&
    nullableString(document.invoiceId)
  ) {
    const { kind, id, number, reference, authorizedAt, cancelledAt, invoiceId } = document;
    return { kind, id, number, reference, authorizedAt, cancelledAt, invoiceId };
  }
  throw new Error(`answered a document it cannot read: ${text.slice(0, 300)}`);
}
