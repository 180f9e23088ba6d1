import { chaosFailed, formatSummary, runChaos, tellEmailsApart } from './support/chaos';
import { MODES, SCENARIOS } from './support/scenarios';
import { TestDatabase } from './support/test-database';

/**
 * The guarantees under everything at once (the short version of `npm run chaos`): three
 * processes on one Postgres and one private Redis, checkouts of every scenario in both modes,
 * while processes are SIGKILLed and restarted, Redis is flushed or restarted empty, and Postgres
 * connections are cut. Once quiet, every accepted checkout has its scenario's status, the
 * invariant checker finds nothing, and the SMTP server got one email per COMPLETED checkout (a
 * second copy of it, with its Message-ID, only where a kill or a cut caught its commit: at most
 * one a fault; docs/guarantees.md, "What is not promised").
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

  it('when the SMTP server got a second copy of an email, then it is told from a second email', () => {
    const mail = (to: string, messageId?: string) => ({
      to: [to],
      headers: new Map(messageId ? [['message-id', messageId]] : []),
    });
    const expected = new Map([
      ['ana@example.com', 1],
      ['bia@example.com', 1],
      ['caio@example.com', 0],
    ]);

    const counted = tellEmailsApart(
      [
        mail('ana@example.com', '<welcome.1@example.com>'),
        mail('ana@example.com', '<welcome.1@example.com>'),
        mail('bia@example.com', '<welcome.2@example.com>'),
        mail('bia@example.com'),
        mail('caio@example.com', '<welcome.3@example.com>'),
      ],
      expected,
    );

    expect(counted.resent).toEqual([{ to: 'ana@example.com', messageId: '<welcome.1@example.com>', copies: 2 }]);
    expect(counted.emails).toEqual([
      { to: 'bia@example.com', received: 2, expected: 1 },
      { to: 'caio@example.com', received: 1, expected: 0 },
    ]);
    // A second copy passes only where a fault could have caused it, one a fault.
    const quiet = {
      checkouts: 1,
      byScenario: {},
      faults: { kill: 0, 'redis-flush': 0, 'redis-restart': 0, 'postgres-cut': 0 },
      wrong: [],
      stuck: [],
      violations: [],
      emails: [],
      invoices: [],
      deadLetters: 0,
      inFlight: [],
      seconds: 1,
    };
    expect(chaosFailed({ ...quiet, resent: counted.resent, resentAllowed: 1 })).toBe(false);
    expect(chaosFailed({ ...quiet, resent: counted.resent, resentAllowed: 0 })).toBe(true);
  });
});
