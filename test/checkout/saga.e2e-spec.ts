import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { OutboxPublisher } from '../../src/infra/outbox';
import { AuthorizePaymentCommand, CaptureDeclined, CapturePaymentCommand } from '../../src/modules/billing/contracts';
import { ORCHESTRATED } from '../../src/modules/checkout/contracts';
import {
  isStaleSagaWrite,
  SagasRepository,
  StaleSagaWriteError,
} from '../../src/modules/checkout/orchestration/database/sagas.repository';
import { sendsOf } from '../../src/modules/checkout/orchestration/domain/saga';
import { Orchestrator } from '../../src/modules/checkout/orchestration/orchestrator';
import { operationsAt } from '../support/at-the-participants';
import { CheckoutClient, LEFT } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { metricValue } from '../support/metrics';
import { QUIET_ENV, quiet } from '../support/quiet';
import { runGatewayUrl } from '../support/run-participants';
import { TestApp } from '../support/test-app';

const FINAL = ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];

describe('The checkout saga', () => {
  let app: TestApp;
  let client: CheckoutClient;
  const notLicensed = async () =>
    client.start({ userId: (await client.createUser({ country: 'JP' })).id, planId: 'premium', mode: 'orchestration' });

  /** No access: none granted, or only a tombstone (the grant timed out once under load, so it was revoked too). */
  const noAccess = async (id: string) => (await client.effects(id)).entitlement !== 'active';
  /** An orchestrated checkout whose capture never answers, out of the deadline sweeper's reach. */
  const sagaWaitingForCapture = async () => {
    app.get(Faults).set([{ point: 'step:billing.capture-payment', action: 'timeout-before' }]);
    const user = await client.createUser();
    const id = await client.start({ userId: user.id, mode: 'orchestration' });
    await eventually(async () => expect((await client.get(id)).step).toBe('billing.capture-payment'));
    await app.database.query(`UPDATE checkout.sagas SET next_deadline = NULL WHERE id = $1`, [id]);
    return id;
  };

  beforeAll(async () => {
    app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        OUTBOX_RELAY_INTERVAL_MS: '50',
        SAGA_STEP_TIMEOUT_MS: '400',
        SAGA_STEP_ATTEMPTS: '3',
        SAGA_COMPENSATION_ATTEMPTS: '3',
        SAGA_SWEEP_INTERVAL_MS: '50',
      },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(() => app.stop());

  it('when a compensation fails fewer times than its limit, then the checkout still ends FAILED with everything undone', async () => {
    app.get(Faults).set([{ point: 'compensation:billing.void-authorization', action: 'fail', times: 2 }]);

    const id = await notLicensed();

    expect(await client.until(id, FINAL)).toMatchObject({ status: 'FAILED', failureReason: 'not-licensed' });
    await quiet(app);
    expect(await client.leftTheSystem(id)).toEqual(LEFT.undone);
    expect(await noAccess(id)).toBe(true);
    const failures = (await client.timeline(id)).filter(
      (e) => e.kind === 'event' && e.type === 'billing.step-failed.v1',
    );
    expect(failures).toHaveLength(2);
  });

  it('when a compensation fails as many times as its limit, then it is INTERVENTION; retried once fixed, FAILED with everything undone', async () => {
    app.get(Faults).set([{ point: 'compensation:billing.void-authorization', action: 'fail', times: 3 }]);
    const id = await notLicensed();

    expect(await client.until(id, FINAL)).toMatchObject({
      status: 'INTERVENTION',
      step: 'billing.void-authorization',
      failureReason: expect.stringContaining('billing.void-authorization failed'),
    });
    expect((await client.effects(id)).payment).toBe('authorized');
    expect(await noAccess(id)).toBe(true);
    const { body: waiting } = await client.admin(app.http().get('/admin/sagas?state=INTERVENTION')).expect(200);
    expect(waiting.find((s: { id: string }) => s.id === id)).toEqual({
      id,
      state: 'INTERVENTION',
      currentStep: 'billing.authorize-payment',
      undoing: true,
      attempts: 3,
      toUndo: ['billing.authorize-payment'],
      outcome: 'failed',
      reason: 'not-licensed',
      intervention: expect.stringContaining('billing.void-authorization failed'),
      interruptedWhile: 'COMPENSATING',
      backingOff: false,
      generation: 0,
      nextDeadline: null,
      version: expect.any(Number),
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
      steps: [
        // attempts: one, or more when a loaded machine answered after the 400 ms step timeout.
        expect.objectContaining({
          step: 'identity.verify-user',
          state: 'DONE',
          attempts: expect.any(Number),
          compensationAttempts: 0,
        }),
        expect.objectContaining({ step: 'billing.authorize-payment', state: 'COMPENSATING', compensationAttempts: 3 }),
        expect.objectContaining({
          step: 'content.grant-access',
          state: 'FAILED',
          startedAt: expect.stringMatching(/Z$/),
        }),
      ],
    });

    app.get(Faults).clear();
    const retried = await client.admin(app.http().post(`/admin/sagas/${id}/retry`)).expect(200);

    expect(retried.body).toEqual({ id, state: 'COMPENSATING', currentStep: expect.any(String), undoing: true });
    expect(await client.until(id, ['FAILED'])).toMatchObject({ status: 'FAILED', failureReason: 'not-licensed' });
    await quiet(app);
    expect(await client.leftTheSystem(id)).toEqual(LEFT.undone);
    expect(await noAccess(id)).toBe(true);
    expect((await client.invariants([id])).violations).toEqual([]);
    await client.admin(app.http().post(`/admin/sagas/${id}/retry`)).expect(409);
  });

  it('when an operator calls an unknown saga, then 404; a malformed id, 400; a bad filter, 400', async () => {
    await client.admin(app.http().post(`/admin/sagas/${randomUUID()}/retry`)).expect(404);
    await client.admin(app.http().post('/admin/sagas/nope/retry')).expect(400);
    await client.admin(app.http().get('/admin/sagas?state=LOST')).expect(400);
    await app.http().get('/admin/sagas').expect(401);
  });

  it('when the OpenAPI document describes /admin/sagas, then its schema names the camelCase fields it answers', async () => {
    const { body: openApi } = await app.http().get('/docs-json').expect(200);
    const schemas = openApi.components.schemas;

    const listed = openApi.paths['/admin/sagas'].get.responses['200'].content['application/json'].schema;
    expect(listed).toEqual({ type: 'array', items: { $ref: '#/components/schemas/SagaResponse' } });
    expect(Object.keys(schemas.SagaResponse.properties)).toEqual(
      expect.arrayContaining([
        'state',
        'currentStep',
        'toUndo',
        'interruptedWhile',
        'backingOff',
        'nextDeadline',
        'steps',
      ]),
    );
    expect(Object.keys(schemas.SagaStepResponse.properties)).toEqual(
      expect.arrayContaining(['step', 'state', 'compensationAttempts', 'lastError', 'startedAt']),
    );
    for (const schema of [schemas.SagaResponse, schemas.SagaStepResponse]) {
      expect(Object.keys(schema.properties).filter((name) => name.includes('_'))).toEqual([]);
    }
  });

  it("when a step's first send goes unanswered, then each command names its send, and the answer names the send it answers", async () => {
    app.get(Faults).set([{ point: 'step:content.grant-access', action: 'timeout-before', times: 1 }]);
    const id = await client.start({ userId: (await client.createUser()).id, mode: 'orchestration' });

    expect(await client.until(id, FINAL)).toMatchObject({ status: 'COMPLETED' });
    const named = async (type: string) =>
      (
        await app.database.query<{ send: string | null }>(
          `SELECT headers->>'step-attempt' AS send FROM outbox.messages
            WHERE aggregate_id = $1 AND type = $2 ORDER BY created_at`,
          [id, type],
        )
      ).map((row) => row.send);
    // More sends than two when a loaded machine answered the second after the 400 ms step timeout.
    const sends = await named('content.grant-access.v1');
    expect(sends.slice(0, 2)).toEqual(['1', '2']);
    const answers = await named('content.access-granted.v1');
    expect(answers.length).toBeGreaterThan(0);
    for (const send of answers) expect(sends.slice(1)).toContain(send);
  });

  it("when a capture from before an operator's retry is declined after it, then it is ignored and counted; the retried capture's refusal is honoured", async () => {
    // A card whose capture is declined, and a capture that never answers until the fault is cleared.
    app.get(Faults).set([{ point: 'step:billing.capture-payment', action: 'timeout-before' }]);
    const user = await client.createUser();
    const id = await client.start({
      userId: user.id,
      paymentMethod: 'pm_card_capture_declined',
      mode: 'orchestration',
    });
    await eventually(async () => expect((await client.get(id)).step).toBe('billing.capture-payment'));
    const txHost = app.get(TransactionHost);
    const sagas = app.get(SagasRepository);
    const orchestrator = app.get(Orchestrator);
    const outOfTheSweepersReach = () =>
      app.database.query(`UPDATE checkout.sagas SET next_deadline = NULL WHERE id = $1`, [id]);
    // Its deadlines passed, one by one, until the pivot waits for a person.
    await outOfTheSweepersReach();
    for (let sends = 1; (await txHost.withTransaction(() => sagas.load(id)))!.saga.status !== 'INTERVENTION'; sends++) {
      expect(sends).toBeLessThan(20);
      await txHost.withTransaction(() => orchestrator.handle(id, { type: 'deadline' }));
      await outOfTheSweepersReach();
    }
    const lastSendBefore = (await txHost.withTransaction(() => sagas.load(id)))!.saga.steps['billing.capture-payment']
      .attempts;
    expect(lastSendBefore).toBeGreaterThan(1);

    const retried = await client.admin(app.http().post(`/admin/sagas/${id}/retry`)).expect(200);
    expect(retried.body).toMatchObject({ state: 'RUNNING', currentStep: 'billing.capture-payment' });
    await outOfTheSweepersReach();
    const staleBefore = await metricValue(app, 'saga_stale_answers_total', { answer: 'refused' });

    // The last capture before the retry is declined, and the answer comes only now.
    const late = await txHost.withTransaction(() =>
      app.get(OutboxPublisher).publish(
        CaptureDeclined,
        { checkoutId: id, reason: 'capture-declined' },
        {
          aggregateId: id,
          headers: { ...ORCHESTRATED, 'step-attempt': String(lastSendBefore), 'step-generation': '0' },
        },
      ),
    );
    await eventually(async () =>
      expect(
        await app.database.query(
          `SELECT 1 FROM outbox.inbox WHERE message_id = $1 AND consumer = 'checkout.orchestrate'`,
          [late],
        ),
      ).toHaveLength(1),
    );

    const { saga } = (await txHost.withTransaction(() => sagas.load(id)))!;
    expect(saga).toMatchObject({ status: 'RUNNING', current: 'billing.capture-payment', generation: 1 });
    expect(await client.get(id)).toMatchObject({ status: 'PENDING', step: 'billing.capture-payment' });
    expect(await metricValue(app, 'saga_stale_answers_total', { answer: 'refused' })).toBe(staleBefore + 1);

    // The retried capture, once it reaches the gateway, is declined: that refusal is the current one's.
    app.get(Faults).clear();
    await app.database.query(`UPDATE checkout.sagas SET next_deadline = clock_timestamp() WHERE id = $1`, [id]);
    expect(await client.until(id, FINAL)).toMatchObject({ status: 'FAILED', failureReason: 'capture-declined' });
    await quiet(app);
    expect(await client.leftTheSystem(id)).toEqual(LEFT.undone);
    expect(await noAccess(id)).toBe(true);
    const generations = await app.database.query<{ type: string; generation: string }>(
      `SELECT type, headers->>'step-generation' AS generation FROM outbox.messages
        WHERE aggregate_id = $1 AND type IN ('billing.capture-payment.v1', 'billing.capture-declined.v1')
        ORDER BY created_at`,
      [id],
    );
    const declined = generations.filter((m) => m.type === 'billing.capture-declined.v1');
    expect(declined.map((m) => m.generation)).toEqual(['0', '1']);
    const captures = generations.filter((m) => m.type === 'billing.capture-payment.v1').map((m) => m.generation);
    expect(captures.slice(0, lastSendBefore)).toEqual(Array(lastSendBefore).fill('0'));
    expect(captures.slice(lastSendBefore)).toEqual(expect.arrayContaining(['1']));
    expect(new Set(captures.slice(lastSendBefore))).toEqual(new Set(['1']));
  });

  it('when an action arrives after its compensation (a tombstone), then it is refused and changes nothing', async () => {
    app.get(Faults).set([{ point: 'step:billing.authorize-payment', action: 'timeout-before' }]);
    const user = await client.createUser();
    const id = await client.start({ userId: user.id, mode: 'orchestration' });
    expect(await client.until(id, FINAL)).toMatchObject({ status: 'FAILED' });
    expect(await client.effects(id)).toEqual({ payment: 'voided', entitlement: undefined, emails: 0 });
    app.get(Faults).clear();

    // The authorization that never answered finally arrives, with its key, after the void.
    await app.get(TransactionHost).withTransaction(() =>
      app.get(OutboxPublisher).publish(
        AuthorizePaymentCommand,
        {
          checkoutId: id,
          userId: user.id,
          planId: 'basic',
          paymentMethod: 'pm_card_ok',
          idempotencyKey: `${id}:billing.authorize-payment`,
          attempt: 4,
        },
        { aggregateId: id, headers: ORCHESTRATED },
      ),
    );

    const answer = await eventually(async () => {
      const [row] = await app.database.query<{ payload: { reason: string } }>(
        `SELECT payload FROM outbox.messages WHERE aggregate_id = $1 AND type = 'billing.payment-declined.v1'`,
        [id],
      );
      expect(row).toBeDefined();
      return row;
    });
    expect(answer.payload.reason).toBe('voided-before-authorization');
    expect(await client.effects(id)).toEqual({ payment: 'voided', entitlement: undefined, emails: 0 });
    const atTheGateway = await operationsAt(runGatewayUrl(), id);
    expect(atTheGateway.filter(({ operation }) => operation === 'authorize')).toEqual([]);
    expect(await client.get(id)).toMatchObject({ status: 'FAILED' });
  });

  it('when two instances move the same saga at once, then the second waits for the first and moves it from what the first wrote', async () => {
    // Only the two instances below move this saga.
    const id = await sagaWaitingForCapture();
    const sagas = app.get(SagasRepository);
    const orchestrator = app.get(Orchestrator);
    const txHost = app.get(TransactionHost);
    const staleBefore = await metricValue(app, 'saga_stale_writes_total');
    let resume!: () => void;
    let stalled!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    const readAndStalled = new Promise<void>((resolve) => (stalled = resolve));
    const save = sagas.save.bind(sagas);
    jest.spyOn(sagas, 'save').mockImplementationOnce(async (...args) => {
      stalled(); // the first instance has read the saga, and stalls before writing it (a GC pause, a slow disk)
      await paused;
      return save(...args);
    });

    const first = txHost.withTransaction(() => orchestrator.handle(id, { type: 'deadline' }));
    await readAndStalled;
    const second = txHost.withTransaction(() => orchestrator.handle(id, { type: 'deadline' }));
    await eventually(async () => {
      const [{ waiting }] = await app.database.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%checkout.sagas%FOR UPDATE%'`,
      );
      expect(waiting).toBe(1);
    });
    resume();

    const [moved, movedAgain] = await Promise.all([first, second]);
    expect(sendsOf(movedAgain!)).toBe(sendsOf(moved!) + 1);
    expect(await metricValue(app, 'saga_stale_writes_total')).toBe(staleBefore);
  });

  it('when a write finds another version than it read, then its transaction keeps nothing, and the input applied again moves the saga once', async () => {
    const id = await sagaWaitingForCapture();
    const sagas = app.get(SagasRepository);
    const orchestrator = app.get(Orchestrator);
    const txHost = app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
    const written = async () =>
      (
        await app.database.query<{ log: number; version: number; commands: number }>(
          `SELECT (SELECT count(*)::int FROM checkout.saga_log WHERE saga_id = $1 AND input = 'deadline') AS log,
                  (SELECT version FROM checkout.sagas WHERE id = $1) AS version,
                  (SELECT count(*)::int FROM outbox.messages WHERE aggregate_id = $1::text AND type = $2) AS commands`,
          [id, CapturePaymentCommand.type],
        )
      )[0];
    const before = await written();
    // A read without the saga's lock (the lock is what rules this out), and another writer after it.
    jest.spyOn(sagas, 'lockAndLoad').mockImplementationOnce(async (sagaId) => {
      const stored = await sagas.load(sagaId);
      await app.database.query(`UPDATE checkout.sagas SET version = version + 1 WHERE id = $1`, [id]);
      return stored;
    });
    const staleBefore = await metricValue(app, 'saga_stale_writes_total');

    const refused = txHost.withTransaction(() => orchestrator.handle(id, { type: 'deadline' }));

    const error: unknown = await refused.then(
      () => 'committed',
      (error: unknown) => error,
    );
    expect(isStaleSagaWrite(error)).toBe(true);
    expect(await written()).toEqual({ ...before, version: before.version + 1 });
    expect(await metricValue(app, 'saga_stale_writes_total')).toBe(staleBefore + 1);
    await txHost.withTransaction(() => orchestrator.handle(id, { type: 'deadline' }));
    expect(await written()).toEqual({
      log: before.log + 1,
      version: before.version + 2,
      commands: before.commands + 1,
    });
  });

  it('when a write is refused as stale, then save answers StaleSagaWriteError, outside a transaction too', async () => {
    const id = await sagaWaitingForCapture();
    const sagas = app.get(SagasRepository);
    const stored = (await sagas.load(id))!;
    await app.database.query(`UPDATE checkout.sagas SET version = version + 1 WHERE id = $1`, [id]);
    const log = { input: 'deadline', from: stored.saga.status, to: stored.saga.status, step: stored.saga.current };

    const save = sagas.save(id, stored.saga, { readVersion: stored.version, log }).then(({ written }) => written);

    await expect(save).rejects.toThrow(StaleSagaWriteError);
  });

  it('when the same business scenarios run in both modes, then they reach the same terminal states', async () => {
    const [br, jp, pt] = await Promise.all(['BR', 'JP', 'PT'].map((country) => client.createUser({ country })));
    const blocked = await client.createUser();
    await client.blockUser(blocked.id);
    const scenarios = [
      { userId: br.id, planId: 'premium', paymentMethod: 'pm_card_ok' },
      { userId: jp.id, planId: 'premium', paymentMethod: 'pm_card_ok' },
      { userId: pt.id, planId: 'basic', paymentMethod: 'pm_card_declined' },
      { userId: pt.id, planId: 'basic', paymentMethod: 'pm_card_capture_declined' },
      { userId: blocked.id, planId: 'basic', paymentMethod: 'pm_card_ok' },
      { userId: randomUUID(), planId: 'basic', paymentMethod: 'pm_card_ok' },
    ];

    const outcomes = async (mode: string) => {
      const ids = await Promise.all(scenarios.map((s) => client.start({ ...s, mode })));
      const ended = await Promise.all(ids.map((id) => client.until(id, FINAL)));
      await quiet(app);
      // What a buyer would see, counted where it leaves the system (a tombstone is a row too).
      return Promise.all(
        ids.map(async (id, index) => ({
          status: ended[index].status,
          failureReason: ended[index].failureReason,
          ...(await client.leftTheSystem(id)),
          access: (await client.effects(id)).entitlement === 'active',
        })),
      );
    };

    const choreography = await outcomes('choreography');
    const orchestration = await outcomes('orchestration');

    expect(orchestration).toEqual(choreography);
    expect(choreography.map((o) => o.status)).toEqual([
      'COMPLETED',
      'FAILED',
      'FAILED',
      'FAILED',
      'REJECTED',
      'REJECTED',
    ]);
  });

  it("when reading an orchestrated timeline, then the saga's transitions sit among the commands and answers", async () => {
    const id = await notLicensed();
    await client.until(id, FINAL);

    const timeline = await client.timeline(id);

    const kinds = timeline.map((e) => `${e.kind}:${e.type}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'command:identity.verify-user.v1',
        'event:identity.buyer-verified.v1',
        'command:billing.authorize-payment.v1',
        'command:content.grant-access.v1',
        'event:content.access-refused.v1',
        'command:billing.void-authorization.v1',
        'saga:refused',
        'saga:done',
      ]),
    );
    expect(kinds.indexOf('command:billing.void-authorization.v1')).toBeGreaterThan(
      kinds.indexOf('event:content.access-refused.v1'),
    );
  });
});
