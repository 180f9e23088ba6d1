import { migrateFiscalAuthority } from '../../participants/fiscal-authority/database/migrate';
import type { FiscalDocument } from '../../participants/fiscal-authority/domain/documents';
import { createFiscalAuthority } from '../../participants/fiscal-authority/fiscal-authority.module';
import type { FaultRule } from '../../participants/fiscal-authority/lab/fault-rules';
import { RunningParticipant } from './participant-service';

export const AUTHORITY_ADMIN_TOKEN = 'test-authority-admin-token-0123456789';

/** A sale to invoice under `reference`, as billing would ask for one. */
export const sale = (reference: string) => ({
  reference,
  buyer: 'buyer-1',
  description: 'the pro plan, a month',
  amountCents: 4_990,
  currency: 'BRL',
});

/** What the authority did under one reference: invoices, cancellations, return notes, where a 2 can show up. */
export interface FiscalEffects {
  invoice: number;
  cancellation: number;
  returnNote: number;
}

/** No document under a reference. */
export const NO_EFFECTS: FiscalEffects = { invoice: 0, cancellation: 0, returnNote: 0 };

/** The fiscal authority service, in this process (RunningParticipant), counted by its documents. */
export class RunningFiscalAuthority extends RunningParticipant<FaultRule> {
  /** `cancelWindowSeconds` (a day unless said); `adminToken: null`, a service with no admin API. */
  static async start({
    cancelWindowSeconds = 86_400,
    adminToken = AUTHORITY_ADMIN_TOKEN,
  }: { cancelWindowSeconds?: number; adminToken?: string | null } = {}): Promise<RunningFiscalAuthority> {
    return new RunningFiscalAuthority(
      ...(await RunningParticipant.launch({
        name: 'authority',
        migrate: migrateFiscalAuthority,
        create: (config) => createFiscalAuthority({ ...config, cancelWindowSeconds }, ['error']),
        adminToken: adminToken ?? undefined,
      })),
    );
  }

  /** Every document the service filed under a reference. */
  documents(reference: string): Promise<FiscalDocument[]> {
    return this.listing(reference, 'documents');
  }

  /** The documents under a reference, counted: invoices, those cancelled, return notes. */
  async effects(reference: string): Promise<FiscalEffects> {
    const documents = await this.documents(reference);
    const invoices = documents.filter((document) => document.kind === 'invoice');
    return {
      invoice: invoices.length,
      cancellation: invoices.filter((invoice) => invoice.cancelledAt !== null).length,
      returnNote: documents.filter((document) => document.kind === 'return-note').length,
    };
  }
}
