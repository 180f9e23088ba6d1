import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { ADMIN_TOKEN, TestApp } from '../support/test-app';

interface BoardQueue {
  name: string;
  counts: Record<string, number>;
}

describe('The queue view at /admin/queues', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.stop();
  });

  it('when a checkout waits in the queues, then Bull Board shows it to the admin token and to no one else', async () => {
    // No worker: what the relay pushes stays waiting, where the board can show it.
    const app = await TestApp.start({ env: { APP_ROLES: 'api,relay,orchestrator' } });
    apps.push(app);
    const client = new CheckoutClient(app);
    const user = await client.createUser();
    await client.start({ userId: user.id, mode: 'choreography' });

    const refused = await app.http().get('/admin/queues').expect(401);
    expect(refused.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    // A browser asks for the token as a password, then sends it with every request of the page.
    expect(refused.headers['www-authenticate']).toMatch(/^Basic realm="queues"/);
    const basic = Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64');
    await app.http().get('/admin/queues/api/queues').set('authorization', `Basic ${basic}`).expect(200);
    const wrongBasic = Buffer.from('admin:guess').toString('base64');
    await app.http().get('/admin/queues/api/queues').set('authorization', `Basic ${wrongBasic}`).expect(401);
    await app.http().get('/admin/queues/api/queues').set('authorization', 'Bearer wrong-token').expect(401);

    const page = await app.http().get('/admin/queues').set('authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('Checkout queues');

    const queues = await eventually(async () => {
      const answer = await app
        .http()
        .get('/admin/queues/api/queues')
        .set('authorization', `Bearer ${ADMIN_TOKEN}`)
        .expect(200);
      const listed = (answer.body as { queues: BoardQueue[] }).queues;
      expect(listed.find((queue) => queue.name === 'identity')?.counts.waiting).toBeGreaterThan(0);
      return listed;
    });
    expect(queues.map((queue) => queue.name).sort()).toEqual(
      expect.arrayContaining(['billing', 'checkout-orchestrator', 'content', 'identity', 'notifications']),
    );
  });

  it('when ADMIN_TOKEN is not set, then /admin/queues does not exist', async () => {
    const app = await TestApp.start({ env: { APP_ROLES: 'api', ADMIN_TOKEN: '' } });
    apps.push(app);

    const answer = await app.http().get('/admin/queues').expect(404);
    expect(answer.body).toMatchObject({ statusCode: 404 });
  });
});
