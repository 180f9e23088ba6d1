import request from 'supertest';
import { MetricsServer } from '../../src/infra/metrics/metrics.server';
import { CheckoutClient } from '../support/checkout-client';
import { ADMIN_TOKEN, TestApp } from '../support/test-app';

const METRICS_TOKEN = 'test-metrics-token-0123456789';

/**
 * /metrics closed with METRICS_TOKEN, and moved to METRICS_PORT: the scraper's token opens it,
 * nothing else does (a buyer's token, the operator's, none), and with a port of its own the API's
 * port does not serve it at all.
 */
describe('Who may scrape /metrics', () => {
  describe('with METRICS_TOKEN set', () => {
    let app: TestApp;
    let buyer: { token: string };
    beforeAll(async () => {
      app = await TestApp.start({ env: { APP_ROLES: 'api', METRICS_TOKEN } });
      buyer = await new CheckoutClient(app).createUser();
    });
    afterAll(() => app.stop());

    it('when a scrape sends the token, then it is answered; without it, or with any other token, 401', async () => {
      const scrape = (authorization?: string) => {
        const call = app.http().get('/metrics');
        return authorization ? call.set('authorization', authorization) : call;
      };

      const { text } = await scrape(`Bearer ${METRICS_TOKEN}`).expect(200);
      expect(text).toContain('checkouts_stuck{mode="choreography"} 0');
      const refused = await Promise.all([
        scrape(),
        scrape(`Bearer ${METRICS_TOKEN}x`),
        scrape(`Basic ${METRICS_TOKEN}`),
        scrape(`Bearer ${buyer.token}`),
        scrape(`Bearer ${ADMIN_TOKEN}`),
      ]);
      expect(refused.map(({ status }) => status)).toEqual([401, 401, 401, 401, 401]);
      expect(refused[0].body).toMatchObject({ statusCode: 401, message: expect.stringMatching(/METRICS_TOKEN/) });
    });
  });

  describe('with METRICS_PORT and METRICS_TOKEN set', () => {
    let app: TestApp;
    let metrics: request.Agent;
    beforeAll(async () => {
      app = await TestApp.start({ env: { APP_ROLES: 'api', METRICS_TOKEN, METRICS_PORT: '0' } });
      metrics = request.agent(`http://127.0.0.1:${app.get(MetricsServer).port}`);
    });
    afterAll(() => app.stop());

    it('when scraped on its own port with the token, then it is answered there, and only there', async () => {
      const { text, headers } = await metrics
        .get('/metrics')
        .set('authorization', `Bearer ${METRICS_TOKEN}`)
        .expect(200);
      expect(headers['content-type']).toMatch(/^text\/plain/);
      expect(text).toContain('outbox_pending_messages 0');

      await metrics.get('/metrics').expect(401);
      await metrics.get('/health').set('authorization', `Bearer ${METRICS_TOKEN}`).expect(404);
      await metrics.post('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`).expect(404);
      await app.http().get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`).expect(404);
      await app.http().get('/health').expect(200);
    });
  });
});
