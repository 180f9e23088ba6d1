import { RunningCardGateway } from '../support/card-gateway-service';
import { CheckoutClient } from '../support/checkout-client';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';

const FINAL = ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];
const NONE = { authorize: 0, capture: 0, void: 0, refund: 0 };

describe.each(['choreography', 'orchestration'] as const)(
  'A checkout (%s) with CARD_GATEWAY_URL set: the card gateway as a service of its own, over HTTP',
  (mode) => {
    let gateway: RunningCardGateway;
    let app: TestApp;
    let client: CheckoutClient;

    beforeAll(async () => {
      gateway = await RunningCardGateway.start();
      app = await TestApp.start({
        env: {
          ...QUIET_ENV,
          CARD_GATEWAY_URL: gateway.url,
          OUTBOX_RELAY_INTERVAL_MS: '100',
          OUTBOX_BACKOFF_MS: '20',
          SAGA_STEP_TIMEOUT_MS: '2000',
        },
      });
      client = new CheckoutClient(app);
    });
    afterEach(() => gateway.clearFaults());
    afterAll(async () => {
      await app.stop();
      await gateway.stop();
    });

    /** Starts a checkout in this mode, waits for its end and for quiet, and counts at the service. */
    async function checkout(choices: { paymentMethod?: string; planId?: string } = {}) {
      const user = await client.createUser({ country: 'BR' });
      const id = await client.start({ userId: user.id, mode, ...choices });
      const ended = await client.until(id, FINAL);
      await quiet(app);
      return { status: ended.status, atTheService: await gateway.effects(id) };
    }

    it('when everything says yes, then it is COMPLETED with one authorization and one capture at the service', async () => {
      expect(await checkout({ planId: 'premium' })).toEqual({
        status: 'COMPLETED',
        atTheService: { ...NONE, authorize: 1, capture: 1 },
      });
    });

    it('when the card is declined, then it is FAILED and the service captured nothing', async () => {
      expect(await checkout({ paymentMethod: 'pm_card_declined' })).toEqual({
        status: 'FAILED',
        atTheService: NONE,
      });
    });

    it('when the capture is declined, then it is FAILED with the authorization voided at the service', async () => {
      expect(await checkout({ paymentMethod: 'pm_card_capture_declined' })).toEqual({
        status: 'FAILED',
        atTheService: { ...NONE, authorize: 1, void: 1 },
      });
    });

    it('when the capture is answered 502 after it took effect, then it is COMPLETED with one capture at the service', async () => {
      await gateway.fault({ fault: 'bad-gateway', operation: 'capture', when: 'after-effect' });

      expect(await checkout()).toEqual({
        status: 'COMPLETED',
        atTheService: { ...NONE, authorize: 1, capture: 1 },
      });
    });
  },
);
