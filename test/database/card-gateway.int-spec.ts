import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Pool } from 'pg';
import type { DatabaseConfig } from '../../src/config/database.config';
import { GatewayRecords } from '../../src/modules/billing/database/gateway-records';
import { FakeCardGateway, type GatewayResponse } from '../../src/modules/billing/gateway/card-gateway';
import { TestDatabase } from '../support/test-database';

const card = (reference: string) => ({
  paymentMethod: 'pm_card_ok' as const,
  amountCents: 1_000,
  currency: 'EUR',
  reference,
});

const authorizationOf = (response: GatewayResponse): string => {
  if (!response.approved) throw new Error(`not approved: ${response.reason}`);
  return response.authorizationId;
};

/** Writes to Postgres by the gateway's pool: a round trip is a write and its response. */
function countWrites(records: GatewayRecords): () => number {
  const pool = (records as unknown as { pool: Pool }).pool;
  let writes = 0;
  pool.on('connect', (client) => {
    const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    (socket as unknown as { write: (...args: unknown[]) => boolean }).write = (...args) => {
      if (!socket.writableCorked) writes += 1;
      return write(...args);
    };
    const uncork = socket.uncork.bind(socket);
    socket.uncork = () => {
      if (socket.writableCorked === 1) writes += 1;
      uncork();
    };
  });
  return () => writes;
}

describe('the fake card gateway, over the app pool client', () => {
  let database: TestDatabase;
  let records: GatewayRecords;
  let gateway: FakeCardGateway;

  beforeAll(async () => {
    database = await TestDatabase.create();
  });

  beforeEach(() => {
    records = new GatewayRecords({
      url: database.url,
      directUrl: database.url,
      preparedStatements: true,
    } as DatabaseConfig);
    gateway = new FakeCardGateway(records);
  });

  afterEach(() => records.onApplicationShutdown());

  afterAll(() => database.drop());

  it('when one key is asked at once many times, then every call gets the first response, and one is remembered', async () => {
    // The pool's four connections open first, so that the calls below run at the same time.
    await Promise.all(Array.from({ length: 4 }, () => gateway.authorize(randomUUID(), card(randomUUID()))));
    const keys = Array.from({ length: 5 }, () => `auth-${randomUUID()}`);

    const responses = await Promise.all(
      keys.map((key) => Promise.all(Array.from({ length: 4 }, () => gateway.authorize(key, card(key))))),
    );

    expect(responses.map((same) => new Set(same.map(authorizationOf)).size)).toEqual(keys.map(() => 1));
    expect(
      await database.query(
        `SELECT count(*)::int AS n FROM billing.gateway_requests WHERE idempotency_key = ANY ($1::text[])`,
        [keys],
      ),
    ).toEqual([{ n: keys.length }]);
  });

  it('when captures of one authorization race under different keys, then one is approved and the others are told it is captured', async () => {
    const authorizations = await Promise.all(
      Array.from({ length: 6 }, async () => authorizationOf(await gateway.authorize(randomUUID(), card(randomUUID())))),
    );

    // Each authorization captured twice at once, under two keys: the lock on the authorization decides.
    const responses = await Promise.all(
      authorizations.flatMap((id) => [gateway.capture(randomUUID(), id), gateway.capture(randomUUID(), id)]),
    );

    const approved = responses.filter((response) => response.approved).length;
    const refused = responses.filter((response) => !response.approved && response.reason === 'already-captured').length;
    expect({ approved, refused }).toEqual({ approved: authorizations.length, refused: authorizations.length });
  });

  it('when an authorization and its capture run, then they cost two and four round trips', async () => {
    const writes = countWrites(records);
    const key = randomUUID();
    const id = authorizationOf(await gateway.authorize(key, card(key)));
    const afterAuthorize = writes();
    await gateway.capture(randomUUID(), id);

    expect({ authorize: afterAuthorize, capture: writes() - afterAuthorize }).toEqual({ authorize: 2, capture: 4 });
  });

  it('when it voids by id only, then a void by key is refused with nothing kept, and a look-up finds the authorization to void by id', async () => {
    const byIdOnly = new FakeCardGateway(records, false);
    const reference = randomUUID();
    const authorizationId = authorizationOf(await byIdOnly.authorize(`auth-${reference}`, card(reference)));

    const byKey = await byIdOnly.void(`void-${reference}`, { authorizationKey: `auth-${reference}` }).catch(String);
    const found = await byIdOnly.authorizationsFiledUnder(reference);
    await byIdOnly.void(`void-${reference}`, { authorizationId });

    expect(byKey).toContain('void-by-key-not-offered');
    expect(found).toEqual([{ authorizationId, done: [] }]);
    expect(await byIdOnly.authorizationsFiledUnder(reference)).toEqual([{ authorizationId, done: ['void'] }]);
  });
});
