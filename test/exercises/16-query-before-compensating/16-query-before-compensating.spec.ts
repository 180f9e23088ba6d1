import { randomUUID } from 'node:crypto';
import { RunningCardGateway } from '../../support/card-gateway-service';
import { CheckoutClient } from '../../support/checkout-client';
import { eventually } from '../../support/eventually';
import { quiet } from '../../support/quiet';
import { TestApp } from '../../support/test-app';
import { EXERCISE_ENV } from '../support/exercise-app';
import { invariant, narrate, narrateTimeline } from '../support/track';
import { QueryBeforeCompensatingWiring } from './query-before-compensating.wiring';

const ENDED = ['FAILED', 'COMPLETED', 'INTERVENTION'];
/** The app waits this long for each answer of the gateway. */
const TIMEOUT_MS = 300;

/**
 * Exercise 16 (lesson 004, "when the third party offers neither idempotency nor cancellation by
 * key, query before compensating, and treat the query as one more step that may be uncertain";
 * ADR 0104): orchestrated checkouts whose authorization the saga gives up on, at the real card
 * gateway service over HTTP, in its profile without void by key. Your answer decides what billing's
 * void releases when billing holds no payment of the checkout. Every count is the gateway's own.
 */
describe('Exercise 16: query before compensating', () => {
  let gateway: RunningCardGateway;
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    gateway = await RunningCardGateway.start({ voidsByKey: false });
    app = await TestApp.start({
      imports: [QueryBeforeCompensatingWiring],
      env: {
        ...EXERCISE_ENV,
        CARD_GATEWAY_URL: gateway.url,
        CARD_GATEWAY_VOIDS_BY_KEY: 'false',
        CARD_GATEWAY_TIMEOUT_MS: String(TIMEOUT_MS),
        CARD_GATEWAY_ATTEMPTS: '2',
        CARD_GATEWAY_BACKOFF_MS: '20',
        // The saga gives the authorization up at its first failure (or 600 ms of silence) and
        // undoes it; a compensation is sent twice, 600 ms apart, then waits for a person
        // (production waits 5 s, asks three times, and sends a compensation five). Through the
        // queues on a busy machine, a command may take 300 ms to reach billing: with that wait
        // the void overtook the authorization, which then never reached the gateway.
        SAGA_STEP_TIMEOUT_MS: '600',
        SAGA_STEP_ATTEMPTS: '1',
        SAGA_COMPENSATION_ATTEMPTS: '2',
        SAGA_SWEEP_INTERVAL_MS: '50',
        // The sweep judges a message delivered 250 ms after its push: quiet comes within half a second.
        OUTBOX_REDELIVER_AFTER_MS: '250',
        OUTBOX_SWEEP_INTERVAL_MS: '100',
      },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => gateway.clearFaults());
  afterAll(async () => {
    await app?.stop();
    await gateway?.stop();
  });

  /** The gateway approves each authorization at once and answers it 500 ms later, after the app stopped waiting. */
  async function lateAuthorizations(): Promise<void> {
    await gateway.fault({ fault: 'late', operation: 'authorize', delayMs: 500, times: 1_000 });
    narrate(
      `armed: the gateway approves each authorization and answers it 500 ms later; the app waits ${TIMEOUT_MS} ms`,
    );
  }

  async function start(): Promise<string> {
    return client.start({ userId: (await client.createUser()).id, mode: 'orchestration' });
  }

  /**
   * What the gateway did under the checkout, once the app is quiet and the gateway has answered
   * everything: its approved operations, and the authorizations still held (nothing approved on
   * them since).
   */
  async function atTheGateway(id: string) {
    await Promise.all([quiet(app), gateway.untilAnswered()]);
    const approved = (await gateway.operations(id)).filter((operation) => operation.approved);
    const on = (operation: string) => approved.filter((each) => each.operation === operation);
    const followed = new Set(
      approved.filter((each) => each.operation !== 'authorize').map((each) => each.authorizationId),
    );
    return {
      authorized: on('authorize').length,
      captured: on('capture').length,
      voided: on('void').length,
      held: on('authorize').filter((each) => !followed.has(each.authorizationId)).length,
    };
  }

  /** Billing's own payments of the checkout (its tombstone aside): none, when our record never committed. */
  async function ourPayments(id: string): Promise<number> {
    const [{ n }] = await app.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM billing.payments WHERE checkout_id = $1 AND NOT tombstone`,
      [id],
    );
    return n;
  }

  /** Waits until the checkout has one of `statuses`; its status, and what the gateway did under it. */
  async function outcome(id: string, statuses = ENDED) {
    const { status } = await client.until(id, statuses);
    const gatewaySaw = await atTheGateway(id);
    narrate(`the checkout is ${String(status)}; at the gateway: ${JSON.stringify(gatewaySaw)}`);
    return { status, ...gatewaySaw };
  }

  /** A checkout undone: FAILED, and `what` (its authorization) voided at the gateway, once, nothing held. */
  function releasedOnce(what: string, { status, held, voided }: Awaited<ReturnType<typeof outcome>>): void {
    invariant(
      `${what} is voided, once (counted at the gateway)`,
      { status, held, voided },
      { status: 'FAILED', held: 0, voided: 1 },
    );
  }

  it('when the answer to the authorization arrives after the app stopped waiting, then the void finds the hold at the gateway and releases it', async () => {
    await lateAuthorizations();

    const id = await start();
    const ended = await outcome(id);
    narrate(`billing holds ${await ourPayments(id)} payment(s) of it: its void asked the gateway what it filed`);
    await narrateTimeline(app, id);

    invariant(
      '(the setup) the gateway approved the authorization whose answer never reached billing, which holds no payment of it',
      [ended.authorized, await ourPayments(id)],
      [1, 0],
    );
    releasedOnce('no money left held once the checkout has failed: the authorization the gateway approved', ended);
  }, 60_000);

  it('when the look-up goes unanswered, then "nothing found" is never taken for an answer: a person is asked, and their retry releases the hold', async () => {
    await lateAuthorizations();
    await gateway.fault({ fault: 'late', operation: 'listing', delayMs: 500, times: 1_000 });
    narrate('armed: the gateway answers every look-up of a checkout 500 ms late, after the app stopped waiting');

    const id = await start();
    const meanwhile = await outcome(id);
    invariant(
      'an unanswered look-up is not "nothing found": the compensation is not declared done, the checkout waits for a person (INTERVENTION), and the hold is still there to release',
      { status: meanwhile.status, held: meanwhile.held },
      { status: 'INTERVENTION', held: 1 },
    );

    await gateway.clearFaults();
    narrate('the gateway answers again; a person retries the saga (POST /admin/sagas/:id/retry)');
    await client.admin(app.http().post(`/admin/sagas/${id}/retry`)).expect(200);
    const ended = await outcome(id, ['FAILED', 'COMPLETED']);
    await narrateTimeline(app, id);
    releasedOnce("after the person's retry the checkout has failed, and the hold", ended);
  }, 60_000);

  it('when the gateway shows the authorization captured, then nothing is voided and nothing declared undone: a person is asked', async () => {
    await lateAuthorizations();

    const id = await start();
    // Planted: the saga never captures money billing holds no payment of. Someone at the gateway's
    // dashboard does, while the saga still waits for the authorization's answer.
    const authorizationId = await eventually(
      async () => {
        const [authorized] = await gateway.operations(id);
        expect(authorized?.authorizationId).toEqual(expect.any(String));
        return authorized.authorizationId!;
      },
      { timeoutMs: 10_000, intervalMs: 10, what: 'the gateway to approve the authorization' },
    );
    const capture = await gateway.request('POST', '/v1/captures', {
      body: { authorizationId },
      headers: { 'idempotency-key': `dashboard-${randomUUID()}` },
    });
    narrate(
      `planted: someone captures the authorization in the gateway's dashboard (approved: ${capture.body.approved})`,
    );

    const { status, captured, voided } = await outcome(id);
    await narrateTimeline(app, id);
    invariant(
      '(the setup) the gateway captured the authorization before the saga undid it',
      capture.body.approved,
      true,
    );
    invariant(
      "captured money is no void's to undo: nothing is voided, and the checkout is not declared undone but waits for a person (INTERVENTION)",
      { status, captured, voided },
      { status: 'INTERVENTION', captured: 1, voided: 0 },
    );
  }, 60_000);

  it('when the authorization never reached the gateway and the look-up answers "none", then the checkout fails cleanly, without a person', async () => {
    await gateway.fault({ fault: 'bad-gateway', when: 'before-effect', operation: 'authorize', times: 1_000 });
    narrate('armed: the gateway answers every authorization 502 before doing anything: nothing is ever held');

    const { status, authorized } = await outcome(await start());
    invariant(
      'an answered look-up that finds nothing is an answer: the checkout fails cleanly (FAILED), with nothing held and no person asked',
      { status, authorized },
      { status: 'FAILED', authorized: 0 },
    );
  }, 60_000);
});
