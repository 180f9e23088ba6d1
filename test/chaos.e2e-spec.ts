import { chaosFailed, formatSummary, runChaos } from './support/chaos';
import { MODES, SCENARIOS } from './support/scenarios';
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
      durationMs: 30_000,
      processes: 3,
      checkoutsPerSecond: 3,
      faultEveryMs: 4_000,
    });
    const report = formatSummary(summary);
    console.log(report);

    // The whole summary when anything is wrong: which checkouts, which rule, which buyer's emails.
    expect(chaosFailed(summary) ? report : 'nothing wrong').toBe('nothing wrong');
    // Every scenario ran in both modes, and every kind of fault happened.
    expect(Object.keys(summary.byScenario).sort()).toEqual(
      SCENARIOS.flatMap((s) => MODES.map((mode) => `${s.name} (${mode})`)).sort(),
    );
    expect(Object.values(summary.faults).every((n) => n > 0)).toBe(true);
  }, 600_000);
});
