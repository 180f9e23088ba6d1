import { randomBytes } from 'node:crypto';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { RedisSentinelRig } from '../support/redis-sentinel';
import { SmtpSink } from '../support/smtp-sink';
import { TestApp } from '../support/test-app';
import { expectSettledOnce, startEveryOutcome, TOPOLOGY_APP_ENV } from './topology-cases';

/** The app on a real Redis Sentinel group of the test's own: a master, a replica, 3 sentinels, an ACL user. */
describe('On Redis Sentinel', () => {
  const auth = { username: 'checkout-app', password: randomBytes(12).toString('hex') };
  let group: RedisSentinelRig;
  let sink: SmtpSink;
  let app: TestApp;
  let client: CheckoutClient;
  const connect = () => group.client();

  beforeAll(async () => {
    [group, sink] = await Promise.all([RedisSentinelRig.start({ auth }), SmtpSink.start()]);
    app = await TestApp.start({
      env: {
        ...TOPOLOGY_APP_ENV,
        REDIS_SENTINELS: group.addresses,
        REDIS_SENTINEL_MASTER: group.masterName,
        REDIS_USERNAME: auth.username,
        REDIS_PASSWORD: auth.password,
        SMTP_URL: sink.url,
      },
    });
    client = new CheckoutClient(app);
  });
  afterAll(async () => {
    await app?.stop();
    await Promise.all([group?.stop(), sink?.stop()]);
  });

  it('when checkouts of every outcome run in both modes, then each ends as it must, with nothing lost, doubled or held', async () => {
    await eventually(async () => {
      const answer = await app.http().get('/health');
      expect({ status: answer.status, details: answer.body.details }).toMatchObject({
        status: 200,
        details: { redis: { status: 'up', topology: 'sentinel' }, queues: { status: 'up' } },
      });
    });
    await expectSettledOnce(app, client, sink, await startEveryOutcome(client), connect);
  });
});
