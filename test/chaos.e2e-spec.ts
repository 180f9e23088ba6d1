import { chaosFailed, formatSummary, runChaos } from './support/chaos';
import { TestDatabase } from './support/test-database';

/**
 * The guarantees under everything at once (the short version of `npm run chaos`): three
 * processes on one Postgres and one private Redis, checkouts of every scenario in both modes,
 * while processes are SIGKILLed and restarted, Redis is flushed or restarted empty, and Postgres
 * connections are cut. Once quiet, every accepted checkout has its scenario's status, the
 * invariant checker finds nothing, and the SMTP server got one email per COMPLETED checkout.
 */
describe('Chaos', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await TestDatabase.create();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('when processes die, Redis forgets and Postgres drops connections under load, then nothing is lost, doubled or held', async () => {
    const summary = await runChaos({
      databaseUrl: database.url,
      durationMs: 25_000,
      processes: 3,
      checkoutsPerSecond: 3,
      faultEveryMs: 3_000,
    });

    expect(summary.checkouts).toBeGreaterThanOrEqual(30);
    expect(Object.values(summary.faults).reduce((a, b) => a + b)).toBeGreaterThanOrEqual(6);
    // The whole summary when anything is wrong: which checkouts, which rule, which buyer's emails.
    expect(chaosFailed(summary) ? formatSummary(summary) : 'nothing wrong').toBe('nothing wrong');
  }, 180_000);
});
