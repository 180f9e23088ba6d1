import { type Migration, migrateSchema } from '../../common/database/migrate';

/**
 * The service's schema, in the order it grew. Each runs once, in a transaction of its own, and is
 * recorded in `card_gateway.migrations`; a later change is a new entry, never an edit of one.
 */
const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    id: '0001-operations-and-tombstones',
    sql: `
      CREATE TABLE card_gateway.operations (
        operation text NOT NULL,
        idempotency_key text NOT NULL,
        response jsonb NOT NULL,
        approved boolean NOT NULL,
        reference text,
        authorization_id text,
        payment_method text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_card_gateway_operations PRIMARY KEY (operation, idempotency_key)
      );
      CREATE INDEX ix_card_gateway_operations_reference ON card_gateway.operations (reference);
      CREATE INDEX ix_card_gateway_operations_authorization ON card_gateway.operations (authorization_id);
      CREATE TABLE card_gateway.tombstones (
        authorization_key text NOT NULL,
        void_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_card_gateway_tombstones PRIMARY KEY (authorization_key)
      );`,
  },
];

/** Creates the service's database when it is missing, then applies the migrations it has not yet. */
export const migrateCardGateway = (databaseUrl: string): Promise<string[]> =>
  migrateSchema(databaseUrl, 'card_gateway', MIGRATIONS);
