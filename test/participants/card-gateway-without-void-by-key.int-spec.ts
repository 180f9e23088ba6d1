import { randomUUID } from 'node:crypto';
import { RunningCardGateway } from '../support/card-gateway-service';
import { TestDatabase } from '../support/test-database';

/**
 * The gateway's second profile (CARD_GATEWAY_VOIDS_BY_KEY=false): a third party that offers no
 * cancellation by the merchant's key, only by the authorization's id, which a caller that lost it
 * finds again by listing what was filed under its reference.
 */
describe('The card gateway service without void by key', () => {
  let gateway: RunningCardGateway;
  let storage: TestDatabase;

  const call = (path: string, key: string, body: unknown) =>
    gateway.request('POST', `/v1/${path}`, { body, headers: { 'idempotency-key': key } });
  const authorize = (key: string, reference: string) =>
    call('authorizations', key, { paymentMethod: 'pm_card_ok', amountCents: 1_000, currency: 'EUR', reference });
  const rowsKept = async () =>
    (
      await storage.query<{ n: number }>(
        `SELECT ((SELECT count(*) FROM card_gateway.operations) + (SELECT count(*) FROM card_gateway.tombstones))::int AS n`,
      )
    )[0].n;

  beforeAll(async () => {
    gateway = await RunningCardGateway.start({ voidsByKey: false });
    storage = TestDatabase.at(gateway.databaseUrl);
  });
  afterEach(() => gateway.clearFaults());
  afterAll(async () => {
    await storage.drop();
    await gateway.stop();
  });

  it.each([
    ['an authorization it holds', true],
    ['an authorization it never saw', false],
  ])(
    'when a void names %s by its key, then it is a 422 that says void by key is not offered, and nothing is written',
    async (_, held) => {
      const reference = randomUUID();
      if (held) await authorize(`auth-${reference}`, reference);
      const before = await rowsKept();

      const { status, body } = await call('voids', `void-${reference}`, { authorizationKey: `auth-${reference}` });

      expect({ status, reason: body.reason }).toEqual({ status: 422, reason: 'void-by-key-not-offered' });
      expect(await rowsKept()).toBe(before);
      expect(await gateway.effects(reference)).toEqual({ authorize: held ? 1 : 0, capture: 0, void: 0, refund: 0 });
    },
  );

  it('when the authorization is looked up under its reference, then a void by its id is approved', async () => {
    const reference = randomUUID();
    await authorize(`auth-${reference}`, reference);

    const [filed] = await gateway.operations(reference);
    const voided = await call('voids', `void-${reference}`, { authorizationId: filed.authorizationId });

    expect(voided.body).toEqual({ approved: true, authorizationId: filed.authorizationId });
    expect(await gateway.effects(reference)).toEqual({ authorize: 1, capture: 0, void: 1, refund: 0 });
  });

  it('when the lab makes the listing late, then it answers late, and a rule for any operation leaves it alone', async () => {
    const reference = randomUUID();
    await gateway.fault({ fault: 'bad-gateway', when: 'before-effect', times: 5 });
    expect(await gateway.operations(reference)).toEqual([]);
    await gateway.fault({ fault: 'late', operation: 'listing', delayMs: 1_000 });

    const started = Date.now();
    const listed = await gateway.request('GET', `/v1/references/${reference}/operations`);

    expect({ status: listed.status, late: Date.now() - started >= 1_000 }).toEqual({ status: 200, late: true });
  });
});
