import { Faults, type FaultRule } from '../../src/infra/faults/faults';
import { RunningCardGateway } from '../support/card-gateway-service';
import { CheckoutClient } from '../support/checkout-client';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';
import { approveUnrecorded } from '../support/unrecorded-authorization';

const NONE = { authorize: 0, capture: 0, void: 0, refund: 0 };

/**
 * A gateway that offers no void by key (CARD_GATEWAY_VOIDS_BY_KEY=false, in the service and in the
 * app): a compensation with no payment row of ours looks the checkout up first, voids by id what
 * is still held, and stays uncertain while the look-up goes unanswered.
 *
 * Orchestration only: the path is the saga's. It gives up a silent authorization and voids it
 * with no payment row of ours; a choreography never does (a silent step stalls it, and its void
 * reacts to content undoing access, which follows a recorded authorization: the void by id).
 *
 * The unrecorded authorization is the held-authorization test's technique: billing never answers,
 * the test's own call approves the authorization under the step's key while the step is out, and
 * the void fails until then.
 */
describe('A saga that voids an authorization it never recorded, at a gateway without void by key', () => {
  let gateway: RunningCardGateway;
  let app: TestApp;
  let client: CheckoutClient;

  const silentBilling: FaultRule = { point: 'step:billing.authorize-payment', action: 'timeout-before' };
  const voidLater: FaultRule = { point: 'compensation:billing.void-authorization', action: 'fail' };

  beforeAll(async () => {
    gateway = await RunningCardGateway.start({ voidsByKey: false });
    app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        CARD_GATEWAY_URL: gateway.url,
        CARD_GATEWAY_VOIDS_BY_KEY: 'false',
        // A second: an answer on a busy machine comes in time; a late listing (2.5 s) does not.
        CARD_GATEWAY_TIMEOUT_MS: '1000',
        OUTBOX_RELAY_INTERVAL_MS: '50',
        OUTBOX_BACKOFF_MS: '20',
        SAGA_STEP_TIMEOUT_MS: '300',
        SAGA_STEP_ATTEMPTS: '2',
        SAGA_COMPENSATION_ATTEMPTS: '3',
        SAGA_SWEEP_INTERVAL_MS: '50',
      },
    });
    client = new CheckoutClient(app);
  });
  afterEach(async () => {
    app.get(Faults).clear();
    await gateway.clearFaults();
  });
  afterAll(async () => {
    await app.stop();
    await gateway.stop();
  });

  /**
   * Starts an orchestrated checkout whose authorization the gateway approves and we never record;
   * the void is let go once `meanwhile` has set the gateway's faults. Answers the checkout and the
   * authorization's id.
   */
  async function unrecordedAuthorization(meanwhile: () => Promise<void> = async () => undefined) {
    app.get(Faults).set([silentBilling, voidLater]);
    const id = await client.start({ userId: (await client.createUser()).id, mode: 'orchestration' });
    await client.untilSagaSent(id, 'billing.authorize-payment');
    const authorizationId = await approveUnrecorded(app, id);
    await meanwhile();
    app.get(Faults).set([silentBilling]);
    return { id, authorizationId };
  }

  /** Billing's tombstone of the checkout, and the authorization it names, if any. */
  const tombstones = (id: string) =>
    app.database.query<{ authorization: string | null }>(
      `SELECT gateway_authorization_id AS authorization FROM billing.payments WHERE checkout_id = $1 AND tombstone`,
      [id],
    );

  it('when the gateway holds an authorization we never recorded, then the look-up finds it and it is voided by id, once', async () => {
    const { id, authorizationId } = await unrecordedAuthorization();

    await client.until(id, ['FAILED']);
    await quiet(app);

    expect(await client.effects(id)).toEqual({ payment: 'voided', entitlement: undefined, emails: 0 });
    expect(await tombstones(id)).toEqual([{ authorization: authorizationId }]);
    expect(await gateway.effects(id)).toEqual({ ...NONE, authorize: 1, void: 1 });
  });

  it('when the look-up goes unanswered on every attempt, then INTERVENTION with no tombstone and nothing voided; the retry voids it', async () => {
    const lateListings = () => gateway.fault({ fault: 'late', operation: 'listing', delayMs: 2_500, times: 1_000 });
    const { id, authorizationId } = await unrecordedAuthorization(lateListings);

    await client.until(id, ['INTERVENTION']);
    await quiet(app);
    await gateway.clearFaults();

    const { body: waiting } = await client.admin(app.http().get('/admin/sagas?state=INTERVENTION')).expect(200);
    const saga = waiting.find((each: { id: string }) => each.id === id);
    expect(saga.intervention).toMatch(
      /^billing.void-authorization failed \(card-gateway: no answer within 1000 ms to GET references\/.* is not known\) 3 times$/,
    );
    expect(await tombstones(id)).toEqual([]);
    expect(await gateway.effects(id)).toEqual({ ...NONE, authorize: 1 });

    await client.admin(app.http().post(`/admin/sagas/${id}/retry`)).expect(200);
    await client.until(id, ['FAILED']);
    await quiet(app);

    expect(await tombstones(id)).toEqual([{ authorization: authorizationId }]);
    expect(await gateway.effects(id)).toEqual({ ...NONE, authorize: 1, void: 1 });
  });

  it('when the void is held past the timeout and the compensation is retried meanwhile, then it is voided once', async () => {
    // The first void waits at the gateway past the client's timeout: that attempt fails, and the
    // next looks the checkout up while the first is still unprocessed, so it voids again.
    const heldVoid = () => gateway.fault({ fault: 'hold', operation: 'void', delayMs: 3_000 });
    const { id, authorizationId } = await unrecordedAuthorization(heldVoid);

    await client.until(id, ['FAILED']);
    await quiet(app);
    await gateway.untilAnswered();

    expect(await tombstones(id)).toEqual([{ authorization: authorizationId }]);
    expect(await gateway.effects(id)).toEqual({ ...NONE, authorize: 1, void: 1 });
  });
});
