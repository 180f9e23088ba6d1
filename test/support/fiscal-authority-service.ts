import { migrateFiscalAuthority } from '../../participants/fiscal-authority/database/migrate';
import type { FiscalDocument } from '../../participants/fiscal-authority/domain/documents';
import { createFiscalAuthority } from '../../participants/fiscal-authority/fiscal-authority.module';
import type { FaultRule } from '../../participants/fiscal-authority/lab/fault-rules';
import { RunningParticipant } from './participant-service';

export const AUTHORITY_ADMIN_TOKEN = 'test-authority-admin-token-0123456789';

/** What the authority did under one reference: invoices, cancellations, return notes, where a 2 can show up. */
export interface FiscalEffects {
  invoice: number;
  cancellation: number;
  returnNote: number;
}

/** The fiscal authority service, in this process (RunningParticipant), counted by its documents. */
export class RunningFiscalAuthority extends RunningParticipant {
  /** `cancelWindowSeconds` (a day unless said); `adminToken: null`, a service with no admin API. */
  static async start({
    cancelWindowSeconds = 86_400,
    adminToken = AUTHORITY_ADMIN_TOKEN,
  }: { cancelWindowSeconds?: number; adminToken?: string | null } = {}): Promise<RunningFiscalAuthority> {
    return new RunningFiscalAuthority(
      ...(await RunningParticipant.launch({
        name: 'authority',
        migrate: migrateFiscalAuthority,
        create: (databaseUrl) =>
          createFiscalAuthority(
            { port: 0, host: '127.0.0.1', databaseUrl, adminToken: adminToken ?? undefined, cancelWindowSeconds },
            ['error'],
          ),
        adminToken: adminToken ?? undefined,
      })),
    );
  }

  override fault(rule: Partial<FaultRule> & Pick<FaultRule, 'fault'>): Promise<void> {
    return super.fault(rule);
  }

  /** Every document the service filed under a reference. */
  async documents(reference: string): Promise<FiscalDocument[]> {
    const { status, body } = await this.request('GET', `/v1/references/${encodeURIComponent(reference)}/documents`);
    if (status !== 200) throw new Error(`the authority did not list ${reference}: ${status}`);
    return body.documents as FiscalDocument[];
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
