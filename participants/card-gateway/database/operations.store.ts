import { ParticipantStore, ParticipantTransaction } from '../../common/database/store';
import type { Operation, OperationRecord, StoredAuthorization } from '../domain/operations';

export type AuthorizationRow = Omit<StoredAuthorization, 'done'>;

/**
 * The service's memory, in its own database: every operation it decided (the response given again
 * for the same key) and every tombstone (a void by key that came before its authorization).
 */
export class OperationsStore extends ParticipantStore<OperationsTransaction> {
  constructor(databaseUrl: string) {
    super(databaseUrl, 'card-gateway', (db) => new OperationsTransaction(db));
  }

  /** Every operation filed under a merchant's reference, oldest first. */
  async filedUnder(reference: string): Promise<OperationRecord[]> {
    const { rows } = await this.pool.query<OperationRow>(
      `SELECT ${COLUMNS} FROM card_gateway.operations WHERE reference = $1 ORDER BY created_at, operation`,
      [reference],
    );
    return rows.map(toRecord);
  }
}

/** The service's memory within one transaction. */
export class OperationsTransaction extends ParticipantTransaction {
  async responseTo(operation: Operation, key: string): Promise<Record<string, unknown> | undefined> {
    const { rows } = await this.db.query<{ response: Record<string, unknown> }>(
      `SELECT response FROM card_gateway.operations WHERE operation = $1 AND idempotency_key = $2`,
      [operation, key],
    );
    return rows[0]?.response;
  }

  async remember(record: Omit<OperationRecord, 'createdAt'>): Promise<void> {
    await this.db.query(
      `INSERT INTO card_gateway.operations
         (operation, idempotency_key, response, approved, reference, authorization_id, payment_method)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        record.operation,
        record.idempotencyKey,
        JSON.stringify(record.response),
        record.approved,
        record.reference,
        record.authorizationId,
        record.paymentMethod,
      ],
    );
  }

  /** The approved authorization of that id, or requested with that idempotency key. */
  async approvedAuthorization(target: { id?: string; key?: string }): Promise<AuthorizationRow | undefined> {
    const { rows } = await this.db.query<{ id: string; reference: string | null; payment_method: string }>(
      `SELECT authorization_id AS id, reference, payment_method FROM card_gateway.operations
        WHERE operation = 'authorize' AND approved AND (authorization_id = $1 OR idempotency_key = $2)`,
      [target.id ?? null, target.key ?? null],
    );
    return rows[0] && { id: rows[0].id, reference: rows[0].reference, paymentMethod: rows[0].payment_method };
  }

  /** The operations but the authorization itself already approved on an authorization. */
  async approvedOperationsOn(authorizationId: string): Promise<Operation[]> {
    const { rows } = await this.db.query<{ operation: Operation }>(
      `SELECT operation FROM card_gateway.operations WHERE authorization_id = $1 AND approved AND operation <> 'authorize'`,
      [authorizationId],
    );
    return rows.map((row) => row.operation);
  }

  /** Files a void by key that found no authorization: an authorization under that key that comes later is refused. */
  async bury(authorizationKey: string, voidKey: string): Promise<void> {
    await this.db.query(
      `INSERT INTO card_gateway.tombstones (authorization_key, void_key) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [authorizationKey, voidKey],
    );
  }

  async isBuried(authorizationKey: string): Promise<boolean> {
    const { rows } = await this.db.query(`SELECT 1 FROM card_gateway.tombstones WHERE authorization_key = $1`, [
      authorizationKey,
    ]);
    return rows.length > 0;
  }
}

type OperationRow = {
  operation: Operation;
  idempotency_key: string;
  response: Record<string, unknown>;
  approved: boolean;
  reference: string | null;
  authorization_id: string | null;
  payment_method: string | null;
  created_at: Date;
};

const COLUMNS =
  'operation, idempotency_key, response, approved, reference, authorization_id, payment_method, created_at';

const toRecord = (row: OperationRow): OperationRecord => ({
  operation: row.operation,
  idempotencyKey: row.idempotency_key,
  response: row.response,
  approved: row.approved,
  reference: row.reference,
  authorizationId: row.authorization_id,
  paymentMethod: row.payment_method,
  createdAt: row.created_at.toISOString(),
});
