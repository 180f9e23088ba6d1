import { RunningCardGateway } from '../support/card-gateway-service';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { RunningFiscalAuthority } from '../support/fiscal-authority-service';
import { QUIET_ENV } from '../support/quiet';
import { TestApp } from '../support/test-app';

/**
 * The operator's view of the participants (GET /admin/participants, the console's Participants
 * card): each service the app reaches, asked for its status, with the faults its own lab has in
 * force, and one that does not answer said so, not hidden.
 */
describe("The operator sees the participants and their labs' faults", () => {
  let gateway: RunningCardGateway;
  let authority: RunningFiscalAuthority;
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    [gateway, authority] = await Promise.all([RunningCardGateway.start(), RunningFiscalAuthority.start()]);
    app = await TestApp.start({
      env: { ...QUIET_ENV, CARD_GATEWAY_URL: gateway.url, FISCAL_AUTHORITY_URL: authority.url },
    });
    client = new CheckoutClient(app);
  });
  afterEach(() => Promise.all([gateway.clearFaults(), authority.clearFaults()]));
  afterAll(async () => {
    await app?.stop();
    await Promise.all([gateway?.stop(), authority?.stop()]);
  });

  const participants = async () => {
    const response = await client.admin(app.http().get('/admin/participants')).expect(200);
    return Object.fromEntries(
      (response.body.participants as Array<{ name: string }>).map((participant) => [participant.name, participant]),
    );
  };

  it('when both are up without faults, then each answered, with an empty lab', async () => {
    expect(await participants()).toEqual({
      'card-gateway': {
        name: 'card-gateway',
        url: gateway.url,
        answered: true,
        lab: { rules: [], down: null, inFlight: 0 },
      },
      'fiscal-authority': {
        name: 'fiscal-authority',
        url: authority.url,
        answered: true,
        lab: { rules: [], down: null, inFlight: 0 },
      },
    });
  });

  it('when the labs have faults in force, then each is shown: an outage answering 503, a late capture', async () => {
    await authority.fault({ fault: 'down', seconds: 60, mode: '503' });
    await gateway.fault({ fault: 'late', operation: 'capture', delayMs: 3_000 });

    const seen = await participants();

    expect(seen['fiscal-authority']).toMatchObject({ answered: true, lab: { down: { mode: '503' } } });
    expect(seen['card-gateway']).toMatchObject({
      answered: true,
      lab: { rules: [{ fault: 'late', operation: 'capture', delayMs: 3_000, left: 1 }], down: null },
    });
  });

  it('when anyone but the operator asks, then the answer is 401 and names nothing', async () => {
    const response = await app.http().get('/admin/participants');

    expect(response.status).toBe(401);
    expect(JSON.stringify(response.body)).not.toContain(authority.url);
  });

  it('when a participant refuses connections, then it is shown as not answering, with why', async () => {
    // Refusing, its admin API is out of reach too: the outage ends by its own clock.
    await authority.fault({ fault: 'down', seconds: 2, mode: 'refuse' });

    const seen = await participants();

    expect(seen['fiscal-authority']).toMatchObject({ answered: false, problem: expect.any(String) });
    expect(seen['card-gateway']).toMatchObject({ answered: true });
    await eventually(async () => expect((await participants())['fiscal-authority']).toMatchObject({ answered: true }), {
      timeoutMs: 10_000,
      what: 'the authority to listen again',
    });
  });
});
