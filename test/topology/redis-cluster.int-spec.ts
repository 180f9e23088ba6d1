import { randomBytes } from 'node:crypto';
import { Subscriptions } from '../../src/infra/outbox/consuming/subscriptions';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { RedisClusterRig } from '../support/redis-cluster';
import { SmtpSink } from '../support/smtp-sink';
import { ADMIN_TOKEN, logs, TestApp } from '../support/test-app';
import { expectSettledOnce, queueKey, startEveryOutcome, TOPOLOGY_APP_ENV } from './topology-cases';

/** /health as the operator reads it: with each part's error text (anonymous callers read only up or down). */
const operatorHealth = (app: TestApp) => app.http().get('/health').set('authorization', `Bearer ${ADMIN_TOKEN}`);

const DEPLOYMENT = 'shop';

/** The app on a real Redis Cluster of the test's own: 3 masters, 3 replicas, an ACL user. */
describe('On a Redis Cluster', () => {
  const auth = { username: 'checkout-app', password: randomBytes(12).toString('hex') };
  let cluster: RedisClusterRig;
  let sink: SmtpSink;
  let app: TestApp;
  let client: CheckoutClient;
  const connect = () => cluster.client();

  beforeAll(async () => {
    [cluster, sink] = await Promise.all([RedisClusterRig.start({ auth }), SmtpSink.start()]);
    app = await TestApp.start({
      // The cluster is the test's own, so the deployment's name need not be unique: a fixed one
      // puts its queues on the same slots in every run (random names put all of them on one
      // master in a few runs of a hundred, as real deployments of few queues may be).
      queuePrefix: DEPLOYMENT,
      env: {
        ...TOPOLOGY_APP_ENV,
        REDIS_CLUSTER_NODES: cluster.seeds,
        REDIS_USERNAME: auth.username,
        REDIS_PASSWORD: auth.password,
        SMTP_URL: sink.url,
      },
    });
    client = new CheckoutClient(app);
  });
  afterAll(async () => {
    await app?.stop();
    await Promise.all([cluster?.stop(), sink?.stop()]);
  });

  it('when the app runs on the cluster, then its queues spread over the masters and /health says so', async () => {
    // A cluster client is ready once it has the slots and a connection to each master: a moment after start.
    const response = await eventually(async () => {
      const answer = await app.http().get('/health');
      expect({ status: answer.status, details: answer.body.details }).toMatchObject({
        status: 200,
        details: { redis: { status: 'up', topology: 'cluster' }, queues: { status: 'up' } },
      });
      return answer;
    });
    expect(response.body.details.redis.topology).toBe('cluster');

    // Each queue has a slot of its own, so the cluster may put each on any master; this
    // deployment's land on more than one.
    const queues = app.get(Subscriptions).queues();
    const slots = new Set<number>();
    const masters = new Set<string>();
    for (const queue of queues) {
      slots.add(await cluster.slotOf(queueKey(app, queue)));
      masters.add((await cluster.masterOf(queueKey(app, queue))).address);
    }
    expect(queues.length).toBeGreaterThanOrEqual(4);
    expect(slots.size).toBe(queues.length);
    expect(masters.size).toBeGreaterThanOrEqual(2);
  });

  it('when checkouts of every outcome run in both modes, then each ends as it must, with nothing lost, doubled or held', async () => {
    await expectSettledOnce(app, client, sink, await startEveryOutcome(client), connect);
  });

  it('when the app is pointed at one node of the cluster as at a single server, then /health is 503 and names the queues it cannot reach', async () => {
    const misconfigured = await TestApp.start({
      env: {
        ...TOPOLOGY_APP_ENV,
        REDIS_URL: `redis://${encodeURIComponent(auth.username)}:${auth.password}@${(await cluster.masters())[0].address}`,
      },
    });
    try {
      const response = await eventually(
        async () => {
          const answer = await operatorHealth(misconfigured);
          expect(answer.status).toBe(503);
          expect(answer.body.details.queues).toMatchObject({ status: 'down' });
          return answer;
        },
        { timeoutMs: 20_000 },
      );
      expect(response.body.message).toContain('queues');
      expect(response.body.details.redis).toMatchObject({ status: 'up' }); // PING alone would have said all is well
      const parts = response.body.details.queues.parts as Record<string, string>;
      expect(Object.keys(parts).some((part) => part.startsWith('worker:'))).toBe(true);
      expect(Object.values(parts).join(' ')).toMatch(/MOVED/);
    } finally {
      await misconfigured.stop();
    }
  });

  it("when the app's ACL user may not touch the deployment's keys, then /health is 503 and names each queue with NOPERM", async () => {
    const password = randomBytes(12).toString('hex');
    await cluster.addUser('another-deployment', password, ['resetkeys', '~{another-deployment:*', '+@all']);
    const refused = await TestApp.start({
      env: {
        ...TOPOLOGY_APP_ENV,
        REDIS_CLUSTER_NODES: cluster.seeds,
        REDIS_USERNAME: 'another-deployment',
        REDIS_PASSWORD: password,
      },
    });
    try {
      const response = await eventually(
        async () => {
          const answer = await operatorHealth(refused);
          expect(answer.status).toBe(503);
          expect(answer.body.details.queues).toMatchObject({ status: 'down' });
          // Once the cluster client is ready (before, each part says that it is not), each part names NOPERM.
          const parts = answer.body.details.queues.parts as Record<string, string>;
          expect(Object.entries(parts).filter(([, error]) => !/NOPERM/.test(error))).toEqual([]);
          return answer;
        },
        { timeoutMs: 20_000 },
      );
      const parts = response.body.details.queues.parts as Record<string, string>;
      expect(Object.keys(parts)).toEqual(expect.arrayContaining(['worker:billing', 'worker:notifications']));
    } finally {
      await refused.stop();
    }
  });
  it("when the rate limits count on the cluster as a user limited to the deployment's keys, then a client's sign-ups are refused past the limit, counted in Redis", async () => {
    const deployment = `limits-${randomBytes(3).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    await cluster.addUser(deployment, password, ['resetkeys', `~{${deployment}:*`, '+@all']);
    const limited = await TestApp.start({
      queuePrefix: deployment,
      env: {
        ...TOPOLOGY_APP_ENV,
        APP_ROLES: 'api',
        REDIS_CLUSTER_NODES: cluster.seeds,
        REDIS_USERNAME: deployment,
        REDIS_PASSWORD: password,
        RATE_LIMIT_SIGNUPS: '2',
      },
    });
    const signUps = new CheckoutClient(limited);
    try {
      // The cluster client is ready a moment after start, as the store's connection, opened at start.
      await eventually(async () => expect((await limited.http().get('/health')).body.details.redis.status).toBe('up'));
      await signUps.createUser();
      await signUps.createUser();
      await signUps.signUp().expect(429);
      // Counted in the cluster, not by the process alone (which it does when Redis refuses or does not answer).
      expect(logs.matching((line) => /counted by this process alone/.test(String(line.msg)))).toEqual([]);
    } finally {
      await limited.stop();
    }
  });
});
