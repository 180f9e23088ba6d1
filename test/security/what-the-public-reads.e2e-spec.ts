import { Faults } from '../../src/infra/faults/faults';
import { NEUTRAL_ERROR } from '../../src/modules/checkout/checkout-timeline/checkout-timeline.controller';
import { freePort } from '../support/app-process';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { ADMIN_TOKEN, TestApp } from '../support/test-app';

/**
 * What an outage or a failed delivery tells the public, and what it tells the operator: the
 * drivers' and handlers' error texts (hosts, ports, why a login failed, a stack's first line) are
 * the operator's only.
 */
describe('What the public reads of failures', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps.splice(0)) await app.stop();
  });

  it('when Redis is down, then anonymous /health says which part is down and nothing its driver said; the operator reads it all', async () => {
    const app = await TestApp.start({
      env: { APP_ROLES: 'api', REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
    });
    apps.push(app);

    const anonymous = await eventually(async () => (await app.http().get('/health').expect(503)).body);
    const operator = await app.http().get('/health').set('authorization', `Bearer ${ADMIN_TOKEN}`).expect(503);

    expect(anonymous).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'down: redis, queues',
      status: 'error',
      info: { postgres: { status: 'up' } },
      details: { postgres: { status: 'up' }, redis: { status: 'down' }, queues: { status: 'down' } },
    });
    expect(operator.body.details.redis).toMatchObject({ status: 'down', message: expect.any(String) });
  });

  it("when a delivery of a buyer's checkout failed, then the buyer's timeline says so in neutral words, and the operator's has the error", async () => {
    const app = await TestApp.start();
    apps.push(app);
    const client = new CheckoutClient(app);
    const buyer = await client.createUser();
    app.get(Faults).set([{ point: 'consumer:content.grant-access', action: 'fail', times: 1 }]);

    const id = await client.start({ userId: buyer.id });
    await client.until(id, ['COMPLETED']);

    const failedFor = (timeline: Array<Record<string, unknown>>) =>
      timeline
        .filter((entry) => entry.kind === 'attempt-failed')
        .map((entry) => (entry.detail as { error?: string }).error);
    expect(failedFor(await client.timeline(id))).toEqual([NEUTRAL_ERROR]);
    const { body } = await client.admin(app.http().get(`/checkouts/${id}/timeline`)).expect(200);
    expect(failedFor(body)).toEqual([expect.stringContaining('Injected fault at consumer:content.grant-access')]);
  });
});
