import { randomUUID } from 'node:crypto';
import { isOutsideFailure } from '../../src/infra/failure-source';
import type { AuthorizationRequest } from '../../src/modules/billing/gateway/card-gateway';
import { HttpCardGateway } from '../../src/modules/billing/gateway/http-card-gateway';
import { RunningCardGateway } from '../support/card-gateway-service';
import { aroundParticipantTests } from '../support/participant-service';
import { eventually } from '../support/eventually';

const card = (reference: string): AuthorizationRequest => ({
  paymentMethod: 'pm_card_ok',
  amountCents: 1_000,
  currency: 'EUR',
  reference,
});

describe("The app's HTTP client of the card gateway, against the real service", () => {
  const around = aroundParticipantTests(() => RunningCardGateway.start());
  const { requestsTo } = around;
  let gateway: RunningCardGateway;
  let client: HttpCardGateway;

  beforeAll(() => {
    gateway = around.service();
    client = new HttpCardGateway({ url: gateway.url, timeoutMs: 500, attempts: 3, backoffMs: 20, voidsByKey: true });
  });

  it('when the gateway answers 502 after the effect, then the client asks again under the same key, and one effect is filed', async () => {
    const reference = randomUUID();
    await gateway.fault({ fault: 'bad-gateway', operation: 'authorize', when: 'after-effect' });

    const response = await client.authorize(`auth-${reference}`, card(reference));

    expect(response.approved).toBe(true);
    expect(requestsTo('authorizations')).toBe(2);
    expect(await gateway.effects(reference)).toEqual({ authorize: 1, capture: 0, void: 0, refund: 0 });
  });

  it('when the answer comes after the timeout, then the call fails as the gateway, and the next call with the same key gets the one effect', async () => {
    const reference = randomUUID();
    const key = `auth-${reference}`;
    await gateway.fault({ fault: 'late', operation: 'authorize', delayMs: 1_500 });

    const failure = await client.authorize(key, card(reference)).catch((error: Error) => error);
    const sentBeforeTheRetry = requestsTo('authorizations');
    await eventually(async () => expect(await gateway.effects(reference)).toMatchObject({ authorize: 1 }));
    const again = await client.authorize(key, card(reference));

    expect(isOutsideFailure(failure)).toBe(true);
    expect((failure as Error).message).toMatch(/card-gateway: .*no answer within 500 ms/);
    expect(sentBeforeTheRetry).toBe(1);
    const [filed] = await gateway.operations(reference);
    expect(again).toEqual({ approved: true, authorizationId: filed.authorizationId });
    expect(await gateway.effects(reference)).toEqual({ authorize: 1, capture: 0, void: 0, refund: 0 });
  });

  it('when the gateway is down for a while, then the call fails as the gateway after its attempts, and succeeds once it is back', async () => {
    const reference = randomUUID();
    await gateway.fault({ fault: 'down', seconds: 2, mode: 'refuse' });

    const failure = await client.authorize(`auth-${reference}`, card(reference)).catch((error: Error) => error);

    expect(isOutsideFailure(failure)).toBe(true);
    expect(requestsTo('authorizations')).toBe(3);
    await eventually(
      async () => expect((await client.authorize(`auth-${reference}`, card(reference))).approved).toBe(true),
      {
        timeoutMs: 6_000,
        intervalMs: 200,
      },
    );
    expect(await gateway.effects(reference)).toEqual({ authorize: 1, capture: 0, void: 0, refund: 0 });
  });

  it('when the gateway answers 503 on every attempt, then the call fails as the gateway with that status', async () => {
    await gateway.fault({ fault: 'down', seconds: 5, mode: '503' });

    const failure = await client.capture(randomUUID(), 'auth_unknown').catch((error: Error) => error);

    expect(isOutsideFailure(failure)).toBe(true);
    expect((failure as Error).message).toContain('answered 503');
    expect(requestsTo('captures')).toBe(3);
  });

  it('when the gateway refuses the request as malformed, then the client does not ask again', async () => {
    const reference = randomUUID();

    const failure = await client
      .authorize(`auth-${reference}`, { ...card(reference), paymentMethod: 'pm_card_unknown' as never })
      .catch((error: Error) => error);

    expect(isOutsideFailure(failure)).toBe(true);
    expect((failure as Error).message).toContain('answered 400');
    expect(requestsTo('authorizations')).toBe(1);
  });

  it('when a void names the authorization by its key, then the gateway voids what it holds under that key', async () => {
    const reference = randomUUID();
    const key = `auth-${reference}`;
    const authorized = await client.authorize(key, card(reference));

    const voided = await client.void(key, { authorizationKey: key });

    expect(voided).toEqual(authorized);
    expect(await gateway.effects(reference)).toEqual({ authorize: 1, capture: 0, void: 1, refund: 0 });
  });

  it('when a reference is looked up, then each authorization filed under it comes with what was done on it', async () => {
    const reference = randomUUID();
    const voided = await client.authorize(`auth-${reference}`, card(reference));
    const held = await client.authorize(`again-${reference}`, card(reference));
    await client.void(`void-${reference}`, {
      authorizationId: (voided as { authorizationId: string }).authorizationId,
    });

    const filed = await client.authorizationsFiledUnder(reference);

    expect(filed).toEqual([
      { authorizationId: (voided as { authorizationId: string }).authorizationId, done: ['void'] },
      { authorizationId: (held as { authorizationId: string }).authorizationId, done: [] },
    ]);
    expect(await client.authorizationsFiledUnder(randomUUID())).toEqual([]);
  });

  it('when the listing answers 502, then the look-up asks again; when it is late past the timeout, it fails as the gateway', async () => {
    const reference = randomUUID();
    await client.authorize(`auth-${reference}`, card(reference));
    const listings = () => requestsTo(`references/${reference}/operations`, 'GET');
    await gateway.fault({ fault: 'bad-gateway', operation: 'listing', when: 'before-effect' });

    const answered = await client.authorizationsFiledUnder(reference);
    await gateway.fault({ fault: 'late', operation: 'listing', delayMs: 1_000 });
    const unanswered = await client.authorizationsFiledUnder(reference).catch((error: Error) => error);

    expect({ answered: answered.length, listings: listings() }).toEqual({ answered: 1, listings: 3 });
    expect(isOutsideFailure(unanswered)).toBe(true);
    expect((unanswered as Error).message).toMatch(/card-gateway: .*no answer within 500 ms/);
  });
});
