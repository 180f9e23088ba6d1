import { randomUUID } from 'node:crypto';
import { AppProcess } from '../support/app-process';
import { eventually } from '../support/eventually';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { ProcessClient } from '../support/process-client';
import { ADMIN_TOKEN, newQueuePrefix } from '../support/test-app';
import { TestDatabase } from '../support/test-database';
import { THROUGH_THE_QUEUES } from '../support/test-env';

const INTERNAL = 1;
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

/** The message each of the seven steps is started by, in each mode. */
const STEPS = {
  choreography: [
    'checkout.checkout-requested.v1',
    'identity.buyer-verified.v1',
    'billing.payment-authorized.v1',
    'content.access-granted.v1',
    'billing.payment-captured.v1',
    'content.access-activated.v1',
    'billing.invoice-issued.v1',
  ],
  orchestration: [
    'identity.verify-user.v1',
    'billing.authorize-payment.v1',
    'content.grant-access.v1',
    'billing.capture-payment.v1',
    'content.activate-access.v1',
    'billing.issue-invoice.v1',
    'notifications.send-welcome-email.v1',
  ],
};

/** Every span of the one trace that the checkout's messages belong to, once all have arrived. */
async function traceOf(receiver: OtlpReceiver, checkoutId: string, steps: string[]): Promise<ReceivedSpan[]> {
  return eventually(
    () => {
      const messaging = receiver.spans.filter((span) => span.attributes['app.checkout.id'] === checkoutId);
      const traceIds = [...new Set(messaging.map((span) => span.traceId))];
      expect(traceIds).toHaveLength(1);
      const spans = receiver.spans.filter((span) => span.traceId === traceIds[0]);
      const processed = spans
        .filter((span) => span.kind === CONSUMER)
        .map((span) => span.attributes['app.message.type']);
      expect(processed).toEqual(expect.arrayContaining(steps));
      // Whole: every parent has arrived, so the trace is one tree.
      const ids = new Set(spans.map((span) => span.spanId));
      expect(spans.filter((span) => span.parentSpanId && !ids.has(span.parentSpanId))).toEqual([]);
      return spans;
    },
    { timeoutMs: 20_000, what: `the trace of checkout ${checkoutId}` },
  );
}

const byId = (spans: ReceivedSpan[]) => new Map(spans.map((span) => [span.spanId, span]));

/** An app's settings on the test's database and own queues, exporting its spans to the receiver at `endpoint`. */
const exportingTo = (endpoint: string, database: TestDatabase) => ({
  DATABASE_URL: database.url,
  QUEUE_PREFIX: newQueuePrefix(),
  LOG_LEVEL: 'warn',
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
  OTEL_BSP_SCHEDULE_DELAY: '100',
});

/** A new buyer's checkout in `mode`, under its own correlation id, completed; and its whole trace. */
async function completedCheckout(client: ProcessClient, receiver: OtlpReceiver, mode: keyof typeof STEPS) {
  const correlationId = `trace-${randomUUID()}`;
  const user = await client.createUser();
  const id = await client.start({ userId: user.id, mode }, { 'x-correlation-id': correlationId });
  await client.until(id, ['COMPLETED']);
  return { correlationId, id, spans: await traceOf(receiver, id, STEPS[mode]) };
}

/**
 * One checkout is one trace, from `POST /checkouts` through every message, although the relay runs
 * in another process than the API and the consumers: each process exports its spans with the
 * standard OTLP exporter, configured only by OTEL_* variables, to a receiver in this test.
 */
describe('The trace of a checkout across the outbox, the relay and the consumers', () => {
  let database: TestDatabase;
  const receiver = new OtlpReceiver();
  const processes: AppProcess[] = [];
  let client: ProcessClient;
  let api: AppProcess;

  beforeAll(async () => {
    database = await TestDatabase.create();
    const endpoint = await receiver.start();
    const shared = {
      ...exportingTo(endpoint, database),
      // The trace through the relay's process; under the local bus a message never leaves the api's.
      ...THROUGH_THE_QUEUES,
    };
    api = await AppProcess.start({
      ...shared,
      ADMIN_TOKEN,
      FAULT_INJECTION: 'true',
      SAGA_STEP_TIMEOUT_MS: '500',
      SAGA_SWEEP_INTERVAL_MS: '100',
      APP_ROLES: 'api,worker,orchestrator',
      OTEL_SERVICE_NAME: 'checkout-api',
    });
    processes.push(api);
    processes.push(await AppProcess.start({ ...shared, APP_ROLES: 'relay', OTEL_SERVICE_NAME: 'checkout-relay' }));
    for (const app of processes) {
      await eventually(
        async () => {
          const health = await app.get('/health').catch(() => ({ status: 0 }));
          if (health.status !== 200) throw new Error(`not healthy yet:\n${app.tail()}`);
        },
        { timeoutMs: 150_000, intervalMs: 250 },
      );
    }
    client = new ProcessClient(api.url);
  }, 320_000);
  afterAll(async () => {
    for (const app of processes) await app.stop();
    await receiver.stop();
    await database.drop();
  });

  it.each(['choreography', 'orchestration'] as const)(
    'when a %s checkout completes, then it is one trace from POST /checkouts through the seven steps, relayed by the other process',
    async (mode) => {
      const { correlationId, id, spans } = await completedCheckout(client, receiver, mode);
      const spanById = byId(spans);

      const roots = spans.filter((span) => !span.parentSpanId);
      expect(roots).toHaveLength(1);
      expect(roots[0]).toMatchObject({
        service: 'checkout-api',
        kind: SERVER,
        attributes: expect.objectContaining({ 'http.request.method': 'POST', 'url.path': '/checkouts' }),
      });

      const sends = spans.filter((span) => span.kind === PRODUCER && span.name.startsWith('send '));
      const creates = spans.filter((span) => span.kind === PRODUCER && span.name.startsWith('create '));
      const processes = spans.filter((span) => span.kind === CONSUMER);
      for (const span of [...sends, ...creates, ...processes]) {
        expect(span.attributes).toMatchObject({
          'messaging.system': 'bullmq',
          'messaging.message.conversation_id': correlationId,
          'app.correlation_id': correlationId,
          'app.checkout.id': id,
        });
      }

      // create (API process) -> send (relay process) -> process (worker) -> create of what it publishes.
      for (const processing of processes) {
        const send = spanById.get(processing.parentSpanId!)!;
        expect(send).toMatchObject({
          service: 'checkout-relay',
          kind: PRODUCER,
          name: `send ${processing.attributes['messaging.destination.name']}`,
        });
        expect(send.attributes['messaging.message.id']).toBe(processing.attributes['messaging.message.id']);
        expect(processing.attributes['messaging.operation.type']).toBe('process');

        const create = spanById.get(send.parentSpanId!)!;
        expect(create).toMatchObject({
          service: 'checkout-api',
          kind: PRODUCER,
          name: `create ${processing.attributes['app.message.type']}`,
        });
        expect(create.attributes['messaging.message.id']).toBe(processing.attributes['messaging.message.id']);
      }
      for (const create of creates) {
        // Published while handling the request or a delivery (maybe inside a route handler's span).
        let cause = spanById.get(create.parentSpanId!)!;
        while (cause.kind === INTERNAL) cause = spanById.get(cause.parentSpanId!)!;
        expect([SERVER, CONSUMER]).toContain(cause.kind);
      }
      // The relay's batch span: each send links to it, and it links back to the messages it carried.
      const batches = byId(receiver.spans.filter((span) => span.name === 'relay outbox'));
      for (const send of sends) {
        expect(send.links).toHaveLength(1);
        const batch = batches.get(send.links[0].spanId);
        expect(batch?.links.map((link) => link.spanId)).toContain(send.parentSpanId);
      }
      expect(sends.length).toBeGreaterThanOrEqual(processes.length);
    },
  );

  const injectOnce = async (point: string, action: string) => {
    const answer = await fetch(`${api.url}/admin/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify({ rules: [{ point, action, times: 1 }] }),
    });
    expect(answer.status).toBe(200);
  };

  it('when an orchestrated step times out and the saga sends it again after its deadline, then the retry is in the same trace', async () => {
    await injectOnce('step:billing.authorize-payment', 'timeout-before');
    const user = await client.createUser();
    const id = await client.start({ userId: user.id, mode: 'orchestration' });
    await client.until(id, ['COMPLETED']);

    const spans = await traceOf(receiver, id, STEPS.orchestration);
    const authorizations = spans.filter(
      (span) => span.kind === CONSUMER && span.attributes['app.message.type'] === 'billing.authorize-payment.v1',
    );
    expect(authorizations.length).toBeGreaterThanOrEqual(2);
    const deadline = spans.find((span) => span.name === 'saga deadline');
    expect(deadline?.attributes['app.checkout.id']).toBe(id);
    // The second send of the step was published under the deadline's span.
    expect(spans.filter((span) => span.parentSpanId === deadline?.spanId).map((span) => span.name)).toContain(
      'create billing.authorize-payment.v1',
    );
  });

  it('when a choreographed step fails, then the compensation that undoes the payment is in the same trace', async () => {
    await injectOnce('step:content.grant-access', 'fail');
    const user = await client.createUser();
    const id = await client.start({ userId: user.id, mode: 'choreography' });
    await client.until(id, ['FAILED']);

    // The refusal is handled by billing, which voids the payment: both in the checkout's trace.
    const spans = await traceOf(receiver, id, [
      'checkout.checkout-requested.v1',
      'billing.payment-authorized.v1',
      'content.access-refused.v1',
    ]);
    const voiding = spans.find(
      (span) =>
        span.kind === CONSUMER && span.attributes['messaging.consumer.group.name'] === 'billing.void-authorization',
    );
    expect(voiding?.attributes['app.message.type']).toBe('content.access-refused.v1');
    expect(spans.map((span) => span.name)).toContain('create billing.payment-voided.v1');
  });
});

/**
 * Under the local bus (the default), a checkout whose modules all run in one process is one trace
 * too: each message is handed over in the process that wrote it, its `process` span a child of its
 * `create` span, with no relay and no `send` in between.
 */
describe('The trace of a checkout through the local bus', () => {
  let database: TestDatabase;
  const receiver = new OtlpReceiver();
  let app: AppProcess;
  let client: ProcessClient;

  beforeAll(async () => {
    database = await TestDatabase.create();
    const endpoint = await receiver.start();
    app = await AppProcess.start({
      ...exportingTo(endpoint, database),
      ADMIN_TOKEN,
      OUTBOX_DELIVERY: 'local',
      OTEL_SERVICE_NAME: 'checkout-app',
    });
    await app.untilHealthy(150_000);
    client = new ProcessClient(app.url);
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
    await receiver.stop();
    await database.drop();
  });

  it.each(['choreography', 'orchestration'] as const)(
    'when a %s checkout completes, then it is one trace from POST /checkouts through the seven steps, each message handed over where it was written',
    async (mode) => {
      const { correlationId, id, spans } = await completedCheckout(client, receiver, mode);
      const spanById = byId(spans);
      expect(spans.filter((span) => !span.parentSpanId).map((span) => span.attributes['url.path'])).toEqual([
        '/checkouts',
      ]);
      expect(spans.filter((span) => span.name.startsWith('send '))).toEqual([]);

      const processes = spans.filter((span) => span.kind === CONSUMER);
      for (const processing of processes) {
        expect(processing.attributes).toMatchObject({
          'messaging.message.conversation_id': correlationId,
          'app.correlation_id': correlationId,
          'app.checkout.id': id,
        });
        const create = spanById.get(processing.parentSpanId!)!;
        expect(create).toMatchObject({
          service: 'checkout-app',
          kind: PRODUCER,
          name: `create ${processing.attributes['app.message.type']}`,
        });
        expect(create.attributes['messaging.message.id']).toBe(processing.attributes['messaging.message.id']);
      }
    },
  );
});
