import path from 'node:path';
import { effectsAt, operationsAt } from '../../support/at-the-participants';
import { quiet } from '../../support/quiet';
import { runGatewayUrl } from '../../support/run-participants';
import { THROUGH_THE_QUEUES } from '../../support/test-env';
import { ExerciseProcess } from '../support/exercise-app';
import { invariant, narrate, narrateTimeline, target } from '../support/track';

const CRASH_POINT = 'step:billing.authorize-payment:after-effect';
/** A child process's start takes seconds, and tens of them on a busy machine. */
const BOOT_MS = 90_000;
const JOB_LOCK_MS = 12_000;
/**
 * BullMQ finds a stalled job in two checks a lock's length apart, and skips a check while the dead
 * worker's last one stands: the dead job runs up to two locks after the new process starts (24.5 s
 * seen here), and a 30 s wait for quiet timed out under CI's load.
 */
const QUIET_AFTER_THE_CRASH = { timeoutMs: 2 * JOB_LOCK_MS + 30_000 };

/**
 * Exercise 09 (lesson 002, calls to outside services without an idempotency key; lesson 004, a
 * timeout says the answer did not arrive, not that the action did not happen): the lost reply. The app runs as its own process, and dies
 * for real (SIGKILL) right after the card gateway approved the hold and before our database
 * recorded it. A new process takes over; the orchestrator, which never heard back, asks again.
 */
describe('Exercise 09: the lost reply', () => {
  let app: ExerciseProcess;

  beforeAll(async () => {
    app = await ExerciseProcess.start({
      modules: [{ file: path.join(__dirname, 'the-lost-reply.wiring.ts'), name: 'TheLostReplyWiring' }],
      env: {
        EXERCISE_TARGET: target(),
        // The dead process's delivery, a job through the queues, is taken back once its lock has
        // run out, after the orchestrator's second send: had it run first, the second send would
        // find its answer committed and never call the gateway, and a key that differs between
        // sends would go unseen (it did, about once in three, with a 1 s lock).
        ...THROUGH_THE_QUEUES,
        OUTBOX_JOB_LOCK_MS: String(JOB_LOCK_MS),
        SAGA_STEP_TIMEOUT_MS: '1000',
        // A key that answers the buyer's next checkout with the first one's hold leaves that
        // checkout unable to void it: it waits for a person after three sends of the void, 3 s,
        // rather than production's five, 15 s.
        SAGA_COMPENSATION_ATTEMPTS: '3',
        SAGA_SWEEP_INTERVAL_MS: '100',
      },
    });
  }, BOOT_MS);
  afterAll(() => app?.stop());

  it(
    "when the process dies between the gateway approving the hold and our commit, then the buyer's card is held once and the checkout completes",
    async () => {
      const buyer = await app.client.createUser();
      await app.client.setFaults([{ point: CRASH_POINT, action: 'crash', times: 1 }]);
      narrate(`armed: the process dies at ${CRASH_POINT} (the gateway has answered, our commit has not happened)`);

      const id = await app.client.start({ userId: buyer.id, mode: 'orchestration' });
      await app.died();
      narrate('the process was killed after the gateway approved the hold; starting a new one');
      await app.restart();

      const { status } = await app.client.until(id, ['COMPLETED', 'FAILED', 'INTERVENTION']);
      await quiet(app, QUIET_AFTER_THE_CRASH);
      // Counted at the card gateway service, where a second hold would show.
      const operations = (await operationsAt(runGatewayUrl(), id)).filter((operation) => operation.approved);
      const authorizations = operations
        .filter((operation) => operation.operation === 'authorize')
        .map((a) => ({
          key: a.idempotencyKey,
          captured: operations.some((c) => c.operation === 'capture' && c.authorizationId === a.authorizationId),
        }));
      narrate(`checkout ${status}; the gateway approved ${authorizations.length} hold(s) for it:`);
      for (const a of authorizations) narrate(`  key ${a.key}: ${a.captured ? 'captured' : 'still held'}`);
      await narrateTimeline(app, id);

      const holds = authorizations.map((a) => `${a.key} (${a.captured ? 'captured' : 'still held'})`);
      invariant(
        "one hold on the buyer's card for one checkout, however often billing asks the gateway " +
          `(a new key is a new purchase to the gateway); it holds: ${holds.join(', ')}`,
        authorizations.length,
        1,
      );
      invariant('the checkout completes', status, 'COMPLETED');

      // The same buyer checks out again, another plan, nothing failing: a key that is the same for
      // every checkout, or for every checkout of a buyer, would answer it with the first checkout's
      // hold, and hold nothing for this one.
      const next = await app.client.start({ userId: buyer.id, planId: 'premium', mode: 'orchestration' });
      const { status: nextStatus } = await app.client.until(next, ['COMPLETED', 'FAILED', 'INTERVENTION']);
      await quiet(app);
      const nextHolds = (await effectsAt(runGatewayUrl(), next)).authorize;
      narrate(
        `the same buyer checks out again (premium), nothing failing: ${nextStatus}, ${nextHolds} hold(s) approved for it`,
      );
      invariant("the buyer's second checkout gets a hold of its own on their card, one", nextHolds, 1);
      invariant("the buyer's second checkout completes", nextStatus, 'COMPLETED');
    },
    2 * BOOT_MS,
  );
});
