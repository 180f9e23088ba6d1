import { randomUUID } from 'node:crypto';
import { GATEWAY_ADMIN_TOKEN, RunningCardGateway } from '../support/card-gateway-service';
import { eventually } from '../support/eventually';
import { itTakesTheLabsFaults } from '../support/lab-faults';
import { aroundParticipantTests } from '../support/participant-service';

const card = (reference: string, paymentMethod = 'pm_card_ok') => ({
  paymentMethod,
  amountCents: 1_000,
  currency: 'EUR',
  reference,
});

describe('The card gateway service, over HTTP, with its own database', () => {
  let gateway: RunningCardGateway;

  const call = (path: string, key: string | undefined, body: unknown) =>
    gateway.request('POST', `/v1/${path}`, { body, headers: key === undefined ? {} : { 'idempotency-key': key } });
  const authorize = (key: string, reference: string, paymentMethod?: string) =>
    call('authorizations', key, card(reference, paymentMethod));
  /** Rows the service keeps, of every kind: what a refused request must leave as it was. */
  const rowsKept = () => gateway.rowsIn('card_gateway.operations', 'card_gateway.tombstones');

  const around = aroundParticipantTests(() => RunningCardGateway.start());
  beforeAll(() => {
    gateway = around.service();
  });

  it('when one key is asked many times at once, then every call gets the first response, and one authorization is filed', async () => {
    const reference = randomUUID();

    const responses = await Promise.all(Array.from({ length: 6 }, () => authorize(`auth-${reference}`, reference)));

    expect(new Set(responses.map(({ body }) => body.authorizationId)).size).toBe(1);
    expect(responses.map(({ status }) => status)).toEqual(responses.map(() => 200));
    expect(await gateway.effects(reference)).toEqual({ authorize: 1, capture: 0, void: 0, refund: 0 });
  });

  it('when each test card is authorized and captured, then it answers as the card says', async () => {
    const outcomes = await Promise.all(
      ['pm_card_ok', 'pm_card_declined', 'pm_card_capture_declined'].map(async (paymentMethod) => {
        const reference = randomUUID();
        const authorized = (await authorize(randomUUID(), reference, paymentMethod)).body;
        const captured = authorized.approved
          ? (await call('captures', randomUUID(), { authorizationId: authorized.authorizationId })).body
          : undefined;
        return {
          paymentMethod,
          authorized: authorized.reason ?? 'approved',
          captured: captured?.reason ?? captured?.approved,
        };
      }),
    );

    expect(outcomes).toEqual([
      { paymentMethod: 'pm_card_ok', authorized: 'approved', captured: true },
      { paymentMethod: 'pm_card_declined', authorized: 'card-declined', captured: undefined },
      { paymentMethod: 'pm_card_capture_declined', authorized: 'approved', captured: 'capture-declined' },
    ]);
  });

  it('when a void names the authorization by its key, then it is voided, and a capture after it is refused', async () => {
    const reference = randomUUID();
    const key = `auth-${reference}`;
    const { authorizationId } = (await authorize(key, reference)).body;

    const voided = await call('voids', `void-${reference}`, { authorizationKey: key });
    const captured = await call('captures', `capture-${reference}`, { authorizationId });

    expect(voided.body).toEqual({ approved: true, authorizationId });
    expect(captured.body).toEqual({ approved: false, reason: 'authorization-voided' });
    expect(await gateway.effects(reference)).toEqual({ authorize: 1, capture: 0, void: 1, refund: 0 });
  });

  it('when an authorization is refunded before and after its capture, then only the refund after it is approved', async () => {
    const reference = randomUUID();
    const { authorizationId } = (await authorize(`auth-${reference}`, reference)).body;

    const early = await call('refunds', `early-${reference}`, { authorizationId });
    await call('captures', `capture-${reference}`, { authorizationId });
    const refunded = await call('refunds', `refund-${reference}`, { authorizationId });

    expect([early.body, refunded.body]).toEqual([
      { approved: false, reason: 'not-captured' },
      { approved: true, authorizationId },
    ]);
    expect(await gateway.effects(reference)).toEqual({ authorize: 1, capture: 1, void: 0, refund: 1 });
  });

  it.each([
    ['no Idempotency-Key', undefined, card('r'), 'missing-idempotency-key', undefined],
    ['an unknown card token', 'k1', card('r', 'pm_card_bogus'), 'invalid-request', 'paymentMethod'],
    ['a negative amount', 'k2', { ...card('r'), amountCents: -5 }, 'invalid-request', 'amountCents'],
    ['a field it does not know', 'k3', { ...card('r'), tip: 1 }, 'invalid-request', 'tip'],
  ] as const)(
    'when an authorization has %s, then it is a 400 that says why, and nothing is written',
    async (_, key, body, reason, field) => {
      const before = await rowsKept();

      const { status, body: answer } = await call('authorizations', key, body);

      expect({ status, reason: answer.reason }).toEqual({ status: 400, reason });
      if (field) expect(answer.details).toHaveProperty(field);
      expect(await rowsKept()).toBe(before);
    },
  );

  it('when a void names both an id and a key, then it is a 400, and no tombstone is left', async () => {
    const before = await rowsKept();

    const { status, body } = await call('voids', randomUUID(), { authorizationId: 'auth_x', authorizationKey: 'k' });

    expect({ status, reason: body.reason }).toEqual({ status: 400, reason: 'invalid-request' });
    expect(await rowsKept()).toBe(before);
  });

  it('when the admin API is called without its token, then it is refused', async () => {
    const { status } = await gateway.request('POST', '/admin/faults', { body: { fault: 'decline' } });
    const wrong = await gateway.request('GET', '/admin/faults', { headers: { authorization: 'Bearer nope' } });

    expect([status, wrong.status]).toEqual([401, 401]);
  });

  it('when an authorization is processed after a void of its key arrived, then the tombstone refuses it', async () => {
    const reference = randomUUID();
    const key = `a-${reference}`;
    await gateway.fault({ fault: 'hold', operation: 'authorize', delayMs: 1_000 });

    const late = authorize(key, reference);
    // The rule is spent when the authorization is taken in and held: the void arrives after it.
    await eventually(async () =>
      expect((await gateway.request('GET', '/admin/faults', adminHeaders)).body.rules).toEqual([]),
    );
    const voided = await call('voids', `void-${reference}`, { authorizationKey: key });

    expect(voided.body).toEqual({ approved: false, reason: 'unknown-authorization' });
    expect((await late).body).toEqual({ approved: false, reason: 'voided-before-authorization' });
    expect(await gateway.effects(reference)).toEqual({ authorize: 0, capture: 0, void: 0, refund: 0 });
  });

  itTakesTheLabsFaults(() => ({
    service: gateway,
    operation: 'authorize',
    refusal: 'decline',
    refused: { approved: false, reason: 'injected-decline' },
    perform: (key, reference) => authorize(key, reference),
    succeeded: (body) => body.approved === true,
    effects: (reference) => gateway.effects(reference),
    none: { authorize: 0, capture: 0, void: 0, refund: 0 },
    one: { authorize: 1, capture: 0, void: 0, refund: 0 },
  }));
});

const adminHeaders = { headers: { authorization: `Bearer ${GATEWAY_ADMIN_TOKEN}` } };
