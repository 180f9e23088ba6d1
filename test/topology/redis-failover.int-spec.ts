import { randomBytes } from 'node:crypto';
import { queuePrefixOf } from '../../src/infra/outbox/queue-prefix';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { onNode, RedisClusterRig, type RedisNodeProcess } from '../support/redis-cluster';
import { RedisSentinelRig } from '../support/redis-sentinel';
import { SmtpSink } from '../support/smtp-sink';
import { TestApp } from '../support/test-app';
import { expectRedeliveredBySweep, killMasterUnderLoad, queueKey, TOPOLOGY_APP_ENV } from './topology-cases';

/**
 * A master killed under load, on a real Redis Cluster (3 masters, 3 replicas) and a real Sentinel
 * group (a master, a replica, 3 sentinels), each with jobs that never reached the replica that
 * takes over.
 */
const auth = { username: 'checkout-app', password: randomBytes(12).toString('hex') };

describe('When a Redis Cluster master dies', () => {
  let cluster: RedisClusterRig;
  let sink: SmtpSink;
  let app: TestApp;
  let client: CheckoutClient;
  const connect = () => cluster.client();

  beforeAll(async () => {
    [cluster, sink] = await Promise.all([RedisClusterRig.start({ auth }), SmtpSink.start()]);
    app = await TestApp.start({
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

  it('when the master holding a queue is killed under load, then its replica takes over and a job lost with it takes effect once, after OUTBOX_REDELIVER_AFTER_MS', async () => {
    const key = queueKey(app, 'notifications');
    const master = await cluster.masterOf(key);
    const replica = await cluster.replicaOf(master);
    let failoverMs = 0;
    const { lost } = await killMasterUnderLoad({
      app,
      client,
      sink,
      connect,
      failover: async (phase) => {
        if (phase === 'pause-replica') {
          replica.pause();
          // What the master had sent is in the replica's socket; what it writes from now on is not.
          await onNode(master, cluster.auth, (c) => c.client('KILL', 'TYPE', 'replica'));
          return;
        }
        const killedAt = Date.now();
        await master.kill();
        replica.resume();
        await eventually(async () => expect((await cluster.masterOf(key)).address).toBe(replica.address), {
          timeoutMs: 30_000,
          what: 'the replica to take over',
        });
        await cluster.settled(3);
        failoverMs = Date.now() - killedAt;
      },
      delayedWelcomes: async () => delayedOn(await cluster.masterOf(key), app.queuePrefix, cluster),
    });

    expectRedeliveredBySweep('Redis Cluster failover', lost);
    process.stdout.write(`Redis Cluster failover: the new master answered ${failoverMs} ms after the kill\n`);
    // /health follows the new master.
    await eventually(async () => expect((await app.http().get('/health')).status).toBe(200), { timeoutMs: 20_000 });
  }, 180_000);
});

describe("When the Redis Sentinel group's master dies", () => {
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

  it('when the master is killed under load, then the sentinels promote the replica and a job lost with the master takes effect once, after OUTBOX_REDELIVER_AFTER_MS', async () => {
    const master = await group.master();
    const [replica] = group.servers.filter((server) => server !== master);
    let failoverMs = 0;
    const { lost } = await killMasterUnderLoad({
      app,
      client,
      sink,
      connect,
      failover: async (phase) => {
        if (phase === 'pause-replica') {
          replica.pause();
          // What the master had sent is in the replica's socket; what it writes from now on is not.
          await onNode(master, group.auth, (c) => c.client('KILL', 'TYPE', 'replica'));
          return;
        }
        const killedAt = Date.now();
        await master.kill();
        replica.resume();
        await eventually(async () => expect((await group.master()).address).toBe(replica.address), {
          timeoutMs: 30_000,
          what: 'the sentinels to promote the replica',
        });
        failoverMs = Date.now() - killedAt;
      },
      delayedWelcomes: async () =>
        onNode(await group.master(), group.auth, (c) =>
          c.zcard(`${queuePrefixOf(app.queuePrefix, 'notifications')}:notifications:delayed`),
        ),
    });

    expectRedeliveredBySweep('Redis Sentinel failover', lost);
    process.stdout.write(`Redis Sentinel failover: the new master answered ${failoverMs} ms after the kill\n`);
    await eventually(async () => expect((await app.http().get('/health')).status).toBe(200), { timeoutMs: 20_000 });
  }, 180_000);
});

/** The notifications queue's delayed jobs, read on this node (a master that holds the queue). */
function delayedOn(node: RedisNodeProcess, prefix: string, cluster: RedisClusterRig): Promise<number> {
  const key = `${queuePrefixOf(prefix, 'notifications')}:notifications:delayed`;
  return onNode(node, cluster.auth, (c) => c.zcard(key));
}
