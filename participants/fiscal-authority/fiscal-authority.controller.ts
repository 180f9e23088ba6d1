import { Body, Controller, Get, Param } from '@nestjs/common';
import { IdempotencyKey, Performs, PerformsOperation } from '../common/requests';
import { DocumentsStore } from './database/documents.store';
import type { AuthorityResponse, FiscalDocument } from './domain/documents';
import { FiscalAuthorityService } from './fiscal-authority.service';
import { CancellationBody, InvoiceBody, ReturnNoteBody } from './requests';

/**
 * The authority's API. Every operation takes the caller's Idempotency-Key header and answers 200
 * with its decision, authorised or not: a refusal is an answer, not an error. A request the
 * authority cannot read is a 400 with a `reason`, and nothing is written.
 */
@Controller('v1')
export class FiscalAuthorityController {
  constructor(
    private readonly authority: FiscalAuthorityService,
    private readonly store: DocumentsStore,
  ) {}

  @Performs('invoices', 'invoice')
  issueInvoice(@IdempotencyKey() key: string, @Body() body: InvoiceBody): Promise<AuthorityResponse> {
    return this.authority.issueInvoice(key, body);
  }

  @Performs('invoices/:invoiceId/cancellations', 'cancellation')
  cancelInvoice(
    @IdempotencyKey() key: string,
    @Param('invoiceId') invoiceId: string,
    @Body() body: CancellationBody,
  ): Promise<AuthorityResponse> {
    return this.authority.cancelInvoice(key, invoiceId, body.reason);
  }

  @Performs('return-notes', 'return-note')
  issueReturnNote(@IdempotencyKey() key: string, @Body() body: ReturnNoteBody): Promise<AuthorityResponse> {
    return this.authority.issueReturnNote(key, body.invoiceId, body.reason);
  }

  /** Every document filed under a merchant's reference: what a checker counts, where a 2 can show up. */
  @Get('references/:reference/documents')
  @PerformsOperation('listing')
  async filedUnder(@Param('reference') reference: string): Promise<{ reference: string; documents: FiscalDocument[] }> {
    return { reference, documents: await this.store.filedUnder(reference) };
  }
}
