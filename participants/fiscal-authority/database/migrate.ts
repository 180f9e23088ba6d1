import { type Migration, migrateSchema } from '../../common/database/migrate';

/**
 * The service's schema, in the order it grew. Each runs once, in a transaction of its own, and is
 * recorded in `fiscal_authority.migrations`; a later change is a new entry, never an edit of one.
 */
const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    id: '0001-documents-and-requests',
    sql: `
      CREATE SEQUENCE fiscal_authority.document_numbers;
      CREATE TABLE fiscal_authority.documents (
        id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('invoice', 'return-note')),
        number bigint NOT NULL DEFAULT nextval('fiscal_authority.document_numbers'),
        reference text NOT NULL,
        buyer text,
        description text,
        amount_cents bigint,
        currency text,
        invoice_id text,
        reason text,
        authorized_at timestamptz NOT NULL DEFAULT now(),
        cancelled_at timestamptz,
        cancellation_reason text,
        CONSTRAINT pk_fiscal_authority_documents PRIMARY KEY (id),
        CONSTRAINT fk_fiscal_authority_documents_invoice FOREIGN KEY (invoice_id)
          REFERENCES fiscal_authority.documents (id)
      );
      CREATE INDEX ix_fiscal_authority_documents_reference ON fiscal_authority.documents (reference);
      -- One return note per invoice, whatever the keys it is asked under.
      CREATE UNIQUE INDEX ux_fiscal_authority_documents_return_note
        ON fiscal_authority.documents (invoice_id) WHERE kind = 'return-note';
      CREATE TABLE fiscal_authority.requests (
        operation text NOT NULL,
        idempotency_key text NOT NULL,
        response jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_fiscal_authority_requests PRIMARY KEY (operation, idempotency_key)
      );`,
  },
];

/** Creates the service's database when it is missing, then applies the migrations it has not yet. */
export const migrateFiscalAuthority = (databaseUrl: string): Promise<string[]> =>
  migrateSchema(databaseUrl, 'fiscal_authority', MIGRATIONS);
