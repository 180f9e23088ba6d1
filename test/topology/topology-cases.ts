import type { Cluster, Redis } from 'ioredis';
import { Faults } from '../../src/infra/faults/faults';
import { queuePrefixOf } from '../../src/infra/outbox/queue-prefix';
import { CheckoutClient, LEFT } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { quiet } from '../support/quiet';
import type { SmtpSink } from '../support/smtp-sink';
import { logs, type TestApp } from '../support/test-app';

/**
 * What the Redis Cluster and Sentinel tests both check: checkouts of every outcome in both modes,
 * and a master killed under load, counted where effects leave the system (the card gateway's
 * records, the SMTP server) and by the invariant checker, once the system is quiet.
 */

export const FINAL = ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];
export const REDELIVER_AFTER_MS = 3_000;
export const RETRY_BACKOFF_MS = 15_000;
const SWEEP_INTERVAL_MS = 200;

/** The app's settings for these tests: a short redelivery age, measured by the failover case. */
export const TOPOLOGY_APP_ENV = {
  REDIS_URL: undefined,
  OUTBOX_REDELIVER_AFTER_MS: String(REDELIVER_AFTER_MS),
  OUTBOX_SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS),
  OUTBOX_RELAY_INTERVAL_MS: '50',
  // A delivery that failed waits longer than the redelivery age: what comes back sooner came from the sweep.
  OUTBOX_BACKOFF_MS: String(RETRY_BACKOFF_MS),
};

/** The Message-ID every copy of a checkout's welcome email carries (MAIL_FROM's domain is checkout.local). */
const welcomeId = (checkoutId: string) => `<welcome.${checkoutId}@checkout.local>`;

interface Started {
  id: string;
  expected: 'COMPLETED' | 'REJECTED' | 'FAILED';
}

/** Starts a checkout of each outcome the product knows, in each mode. */
export async function startEveryOutcome(client: CheckoutClient): Promise<Started[]> {
  const [pt, jp, blocked] = await Promise.all([
    client.createUser({ country: 'PT' }),
    client.createUser({ country: 'JP' }),
    client.createUser({ country: 'PT' }),
  ]);
  await client.blockUser(blocked.id);
  const cases = ['choreography', 'orchestration'].flatMap((mode) => [
    { body: { userId: pt.id, mode }, expected: 'COMPLETED' as const },
    { body: { userId: pt.id, mode, paymentMethod: 'pm_card_declined' }, expected: 'FAILED' as const },
    { body: { userId: pt.id, mode, paymentMethod: 'pm_card_capture_declined' }, expected: 'FAILED' as const },
    { body: { userId: jp.id, mode, planId: 'premium' }, expected: 'FAILED' as const },
    { body: { userId: blocked.id, mode }, expected: 'REJECTED' as const },
  ]);
  return Promise.all(cases.map(async ({ body, expected }) => ({ id: await client.start(body), expected })));
}

/** Starts `count` checkouts that complete, alternating the modes. */
export async function startHappy(client: CheckoutClient, count: number): Promise<Started[]> {
  const buyer = await client.createUser({ country: 'PT' });
  return Promise.all(
    Array.from({ length: count }, async (_, i) => ({
      id: await client.start({ userId: buyer.id, mode: i % 2 ? 'orchestration' : 'choreography' }),
      expected: 'COMPLETED' as const,
    })),
  );
}

/**
 * Each checkout ended as it must, and once quiet: no invariant broken, and what left the system is
 * what its outcome allows, once (gateway operations, welcome emails handed over and received).
 */
export async function expectSettledOnce(
  app: TestApp,
  client: CheckoutClient,
  sink: SmtpSink,
  checkouts: Started[],
  connect: () => Redis | Cluster,
): Promise<void> {
  for (const { id, expected } of checkouts) {
    expect({ id, status: (await client.until(id, FINAL, 60_000)).status }).toEqual({ id, status: expected });
  }
  await quiet(app, { connect, timeoutMs: 60_000, stableForMs: REDELIVER_AFTER_MS + 2 * SWEEP_INTERVAL_MS });
  expect((await client.invariants(checkouts.map(({ id }) => id))).violations).toEqual([]);
  for (const { id, expected } of checkouts) {
    const left = expected === 'COMPLETED' ? LEFT.sold : expected === 'FAILED' ? undefined : LEFT.nothing;
    const actual = await client.leftTheSystem(id);
    if (left) expect({ id, ...actual }).toEqual({ id, ...left });
    else expect({ id, ...actual }).toEqual({ id, ...(actual.authorize ? LEFT.undone : LEFT.nothing) });
    expect({ id, received: sink.withHeader('message-id', welcomeId(id)).length }).toEqual({
      id,
      received: expected === 'COMPLETED' ? 1 : 0,
    });
  }
}

/** The key that says where a queue lives: its keys share this one's slot. */
export const queueKey = (app: TestApp, queue: string) => `${queuePrefixOf(app.queuePrefix, queue)}:${queue}:meta`;

const WELCOME_CONSUMERS = ['notifications.send-welcome-email', 'notifications.send-welcome-email-command'];

/** A welcome-email delivery whose job died with the master: when its message was published, and when it took effect. */
export interface LostDelivery {
  sincePublishedMs: number;
  sinceFailoverMs: number;
  /** How much later than the sweep's promise (the redelivery age, or the failover's end if that is later). */
  lateMs: number;
}

/**
 * A master dies under load holding jobs its replica never saw: the replica is paused (SIGSTOP) and
 * its link cut, so that nothing more reaches it; the welcome-email deliveries fail once (so that
 * their jobs wait, delayed, on the master) while other checkouts run; then the master is killed
 * (SIGKILL) and the replica resumed, to be promoted, without those jobs. Every checkout must still
 * end once; the deliveries whose jobs died come back through the redelivery sweep, which pushes a
 * message again once it is OUTBOX_REDELIVER_AFTER_MS old: returns how long each took.
 */
export async function killMasterUnderLoad(options: {
  app: TestApp;
  client: CheckoutClient;
  sink: SmtpSink;
  connect: () => Redis | Cluster;
  /** Pauses the replica that would take over and cuts its link, or kills the master and resumes the replica; resolves once promoted. */
  failover: (phase: 'pause-replica' | 'kill-master') => Promise<void>;
  /** The delayed jobs of the notifications queue, counted on the master that holds it now. */
  delayedWelcomes: () => Promise<number>;
}): Promise<{ checkouts: Started[]; lost: LostDelivery[] }> {
  const { app, client, sink, connect, failover, delayedWelcomes } = options;
  const faults = app.get(Faults);
  const now = async () => (await app.database.query<{ now: Date }>(`SELECT clock_timestamp() AS now`))[0].now;
  await failover('pause-replica');
  faults.set(WELCOME_CONSUMERS.map((point) => ({ point: `consumer:${point}`, action: 'fail' as const })));
  const held = await startHappy(client, 6);
  await eventually(async () => expect(await delayedWelcomes()).toBe(held.length), {
    timeoutMs: 30_000,
    what: 'each welcome email delivery to wait, failed once, on the master',
  });
  faults.clear();
  // Load while the master dies: checkouts already under way and more arriving.
  const during = startHappy(client, 10);
  const more = startEveryOutcome(client);
  const killedAt = await now();
  await failover('kill-master');
  const promotedAt = await now();
  // The promoted replica never saw those jobs.
  expect(await delayedWelcomes()).toBe(0);
  const checkouts = [...held, ...(await during), ...(await more)];
  try {
    await expectSettledOnce(app, client, sink, checkouts, connect);
  } catch (error) {
    // What the app said meanwhile, for the one who reads the failure.
    const said = logs.lines.filter((line) => Number(line.level) >= 40).slice(-40);
    process.stdout.write(said.map((line) => `${String(line.context)}: ${String(line.msg)}`).join('\n') + '\n');
    for (const { id } of checkouts) {
      const { status } = await client.get(id);
      if (FINAL.includes(String(status))) continue;
      const pending = await app.database.query(
        `SELECT m.type, m.published_at, m.delivered_at, m.created_at,
                (SELECT array_agg(consumer || '@' || handled_at) FROM outbox.inbox i WHERE i.message_id = m.id) AS inbox
           FROM outbox.messages m
          WHERE m.correlation_id = (SELECT correlation_id FROM checkout.checkouts WHERE id = $1)
          ORDER BY m.created_at`,
        [id],
      );
      process.stdout.write(`checkout ${id} is ${String(status)}: ${JSON.stringify(pending)}\n`);
    }
    throw error;
  }

  const rows = await app.database.query<{ published_at: Date; handled_at: Date }>(
    `SELECT m.published_at, i.handled_at
       FROM outbox.inbox i JOIN outbox.messages m ON m.id = i.message_id
      WHERE i.consumer = ANY($1) AND m.published_at < $3
        AND m.correlation_id IN (SELECT correlation_id FROM checkout.checkouts WHERE id = ANY($2::uuid[]))`,
    [WELCOME_CONSUMERS, held.map(({ id }) => id), killedAt],
  );
  const lost = rows.map(({ published_at: published, handled_at: handled }) => ({
    sincePublishedMs: handled.getTime() - published.getTime(),
    sinceFailoverMs: handled.getTime() - promotedAt.getTime(),
    lateMs: handled.getTime() - Math.max(published.getTime() + REDELIVER_AFTER_MS, promotedAt.getTime()),
  }));
  return { checkouts, lost };
}

/** What the failover tests assert of the lost deliveries, and print. */
export function expectRedeliveredBySweep(topology: string, lost: LostDelivery[]): void {
  expect(lost.length).toBeGreaterThanOrEqual(6);
  for (const delivery of lost) {
    // Never before the sweep judges the message overdue, and soon after it does (or after the failover).
    expect(delivery.sincePublishedMs).toBeGreaterThanOrEqual(REDELIVER_AFTER_MS);
    expect(delivery.lateMs).toBeLessThan(LATE_SLACK_MS);
  }
  const list = (values: number[]) => values.map((ms) => Math.round(ms)).join(', ');
  process.stdout.write(
    `${topology}: lost jobs took effect ${list(lost.map((d) => d.sincePublishedMs))} ms after publication, ` +
      `${list(lost.map((d) => d.sinceFailoverMs))} ms after the failover (OUTBOX_REDELIVER_AFTER_MS ${REDELIVER_AFTER_MS})\n`,
  );
}

/** A sweep runs every 200 ms; what a busy machine adds to take a checkout's email step. */
const LATE_SLACK_MS = 10_000;
