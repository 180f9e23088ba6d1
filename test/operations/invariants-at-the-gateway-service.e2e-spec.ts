import { randomUUID } from 'node:crypto';
import { Invariants, MoneyNotCounted } from '../../src/operations/invariants';
import { RunningCardGateway } from '../support/card-gateway-service';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { QUIET_ENV } from '../support/quiet';
import { plantedViolations } from '../support/planted-violations';
import { TestApp } from '../support/test-app';

/**
 * The checker with CARD_GATEWAY_URL set: the app's own table of gateway requests stays empty, and
 * the money rules count at the card gateway service, from its listing of each checkout. Each
 * violation is planted at the service itself, over its API, where the effect leaves the system; a
 * checker that read only the app's tables would see nothing planted, and call a sale uncaptured.
 */
describe('The invariant checker, on violations planted at the card gateway service', () => {
  let gateway: RunningCardGateway;
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    gateway = await RunningCardGateway.start();
    app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        CARD_GATEWAY_URL: gateway.url,
        CARD_GATEWAY_TIMEOUT_MS: '1000',
        OUTBOX_RELAY_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_MS: '20',
        SAGA_SWEEP_INTERVAL_MS: '50',
      },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => gateway.clearFaults());
  afterAll(async () => {
    await app.stop();
    await gateway.stop();
  });

  const { report, checkout, planted } = plantedViolations(() => ({ app, client }));

  /** One operation sent to the service by the test, as any client would, under a key of its own. */
  const atTheService = async (path: string, body: object): Promise<string> => {
    const { status, body: answer } = await gateway.request('POST', `/v1/${path}`, {
      body,
      headers: { 'idempotency-key': `planted:${randomUUID()}` },
    });
    if (status !== 200 || answer.approved !== true) {
      throw new Error(`The service refused the planted ${path}: ${status} ${JSON.stringify(answer)}`);
    }
    return answer.authorizationId as string;
  };
  const authorizeAtService = (checkoutId: string) =>
    atTheService('authorizations', {
      paymentMethod: 'pm_card_ok',
      amountCents: 990,
      currency: 'USD',
      reference: checkoutId,
    });
  const chargeAtService = async (checkoutId: string) =>
    atTheService('captures', { authorizationId: await authorizeAtService(checkoutId) });

  it('when checkouts ran as they should, then it reports nothing about them, their money counted at the service', async () => {
    const ids = [await checkout('completed'), await checkout('not-licensed'), await checkout('capture-declined')];

    const { violations } = await report();

    expect(violations.filter((v) => ids.includes(v.checkoutId))).toEqual([]);
    expect((await gateway.effects(ids[0])).capture).toBe(1);
  });

  it('when a failed checkout still holds an authorization at the service, then held-money', async () => {
    const id = await checkout('not-licensed');

    expect(await planted(() => authorizeAtService(id))).toEqual([{ checkoutId: id, rule: 'held-money' }]);
  });

  it('when a completed checkout was captured twice at the service, then double-charge', async () => {
    const id = await checkout('completed');

    expect(await planted(() => chargeAtService(id))).toEqual([{ checkoutId: id, rule: 'double-charge' }]);
    expect(await gateway.effects(id)).toMatchObject({ authorize: 2, capture: 2 });
  });

  it('when a failed checkout was captured at the service, then charged-for-nothing', async () => {
    const id = await checkout('not-licensed');

    expect(await planted(() => chargeAtService(id))).toEqual([{ checkoutId: id, rule: 'charged-for-nothing' }]);
  });

  it('when the service does not answer its listing, then there is no report, rather than one that says fine', async () => {
    const id = await checkout('completed');
    await gateway.fault({ fault: 'down', seconds: 3 });

    const answered = await client.admin(app.http().get('/admin/invariants'));
    const inProcess = await app
      .get(Invariants)
      .check([id])
      .catch((error: unknown) => error);

    expect(answered.status).toBe(503);
    expect(answered.body.message).toContain('card gateway service did not list');
    expect(inProcess).toBeInstanceOf(MoneyNotCounted);
    expect((inProcess as MoneyNotCounted).checkoutId).toBe(id);
    // Back up, the same report counts again.
    await eventually(
      async () => expect((await gateway.request('GET', `/v1/references/${id}/operations`)).status).toBe(200),
      {
        timeoutMs: 10_000,
        what: 'the service to listen again',
      },
    );
    expect((await report()).violations.filter((v) => v.checkoutId === id)).toEqual([]);
  });
});
