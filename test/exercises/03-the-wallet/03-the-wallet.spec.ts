import { randomUUID } from 'node:crypto';
import { Faults } from '../../../src/infra/faults/faults';
import { jobIdOf, OutboxQueues } from '../../../src/infra/outbox/outbox.queues';
import { OutboxRelay } from '../../../src/infra/outbox/relaying/outbox.relay';
import { eventually } from '../../support/eventually';
import { ExerciseProcess } from '../support/exercise-app';
import { TestApp } from '../../support/test-app';
import { implementationPath, invariant, narrate } from '../support/track';
import { Bank, CREDIT_WALLET, WalletModule } from './exercise';

/**
 * Exercise 03: the wallet (lesson 002, exercise 3). Two processes, as in production: the wallet's
 * worker, which runs your consumer, is a process of its own that the story kills and restarts;
 * the bank and the relay run in this one, and the relay runs only when the story calls it.
 *
 * The invariant: each deposit is credited exactly once, whatever delivered it twice.
 */
describe('Exercise 03: the wallet', () => {
  let worker: ExerciseProcess;
  let bank: TestApp;
  const relay = () => bank.get(OutboxRelay).relayBatch();

  beforeAll(async () => {
    worker = await ExerciseProcess.start({
      modules: [{ file: implementationPath(__dirname), name: 'AnswerModule' }],
      // A job whose worker died is taken again within a second.
      env: { APP_ROLES: 'api,worker', OUTBOX_JOB_LOCK_MS: '1000' },
    });
    bank = await TestApp.start({
      database: worker.database,
      queuePrefix: worker.queuePrefix,
      imports: [WalletModule],
      env: { APP_ROLES: 'api' },
    });
    await bank.ready();
    await eventually(async () =>
      expect(
        await worker.database.query(`SELECT 1 FROM outbox.consumers WHERE consumer = $1`, [CREDIT_WALLET]),
      ).toHaveLength(1),
    );
  }, 90_000);
  afterEach(() => bank.get(Faults).clear());
  afterAll(async () => {
    await bank?.stop();
    await worker?.stop();
  });

  /**
   * One wallet per deposit: the starter's read-modify-write would also lose an update when two
   * deposits to one wallet are credited at the same moment, a different bug (lesson 001's lost update).
   */
  async function newWallet(): Promise<string> {
    const walletId = randomUUID();
    await worker.database.query(`INSERT INTO wallet.wallets (id) VALUES ($1)`, [walletId]);
    return walletId;
  }

  async function deposit(walletId: string, amount: number): Promise<string> {
    const messageId = await bank.get(Bank).deposit(walletId, amount);
    narrate(`the bank deposits ${amount} (message ${messageId.slice(0, 8)})`);
    return messageId;
  }

  const balanceOf = async (walletId: string) =>
    (
      await worker.database.query<{ balance: number }>(`SELECT balance FROM wallet.balances WHERE wallet_id = $1`, [
        walletId,
      ])
    )[0].balance;

  /** Every copy of these messages was delivered: the first ones and `duplicates` more, none left in Redis. */
  async function delivered(messageIds: string[], duplicates: number): Promise<void> {
    const queue = bank.get(OutboxQueues).queue('wallet');
    await eventually(
      async () => {
        const [{ received, copies }] = await worker.database.query<{ received: number; copies: number }>(
          `SELECT (SELECT count(*)::int FROM outbox.inbox WHERE message_id = ANY($1::uuid[]) AND consumer = $2) AS received,
                  (SELECT count(*)::int FROM outbox.delivery_attempts
                    WHERE message_id = ANY($1::uuid[]) AND consumer = $2 AND outcome = 'duplicate') AS copies`,
          [messageIds, CREDIT_WALLET],
        );
        expect({ received, copies }).toEqual({ received: messageIds.length, copies: duplicates });
        for (const id of messageIds) {
          const jobId = jobIdOf(id, CREDIT_WALLET);
          expect(await queue.getJob(jobId)).toBeUndefined();
          expect(await queue.getJob(`${jobId}--copy`)).toBeUndefined();
        }
      },
      { timeoutMs: 30_000, what: 'every copy to be delivered' },
    );
  }

  async function expectCredited(walletId: string, expected: number, story: string): Promise<void> {
    const balance = await balanceOf(walletId);
    narrate(`the wallet holds ${balance}`);
    invariant(`${story}: the wallet must hold ${expected}`, balance, expected);
  }

  it('when the relay dies between push and mark, then each deposit is credited once', async () => {
    const [alice, bob] = [await newWallet(), await newWallet()];
    const earlier = [await deposit(alice, 30)];
    await relay();
    await delivered(earlier, 0);
    narrate(`alice's wallet was credited once already: it holds ${await balanceOf(alice)}`);
    const deposits = [await deposit(alice, 100), await deposit(bob, 50)];
    bank.get(Faults).set([{ point: 'relay.after-push', action: 'fail', times: 1 }]);

    await expect(relay()).rejects.toThrow('Injected fault at relay.after-push');
    narrate('injected: the relay pushed both deposits, then died before marking them pushed');
    await delivered(deposits, 0);
    await relay();
    narrate('the relay ran again and pushed both again');
    await delivered(deposits, 2);

    await expectCredited(alice, 130, 'a deposit of 30, then one of 100 delivered twice');
    await expectCredited(bob, 50, 'a deposit of 50, delivered twice');
  });

  it('when two copies of a deposit arrive at once, then it is credited once', async () => {
    const [alice, bob] = [await newWallet(), await newWallet()];
    const deposits = [await deposit(alice, 100), await deposit(bob, 50)];
    bank.get(Faults).set([{ point: 'relay.push', action: 'duplicate', times: 1 }]);

    await relay();
    narrate('injected: the relay pushed every deposit twice at once, under two job ids');
    await delivered(deposits, 2);

    await expectCredited(alice, 100, 'a deposit of 100, arriving twice at the same moment');
    await expectCredited(bob, 50, 'a deposit of 50, arriving twice at the same moment');
  });

  it('when the worker is killed and restarted between two copies, then the deposit is credited once', async () => {
    const walletId = await newWallet();
    const deposits = [await deposit(walletId, 100)];
    bank.get(Faults).set([{ point: 'relay.after-push', action: 'fail', times: 1 }]);
    await expect(relay()).rejects.toThrow('Injected fault at relay.after-push');
    await delivered(deposits, 0);
    narrate('the first copy was credited; the relay died before marking it pushed');

    await worker.restart();
    narrate('injected: the worker process was killed (SIGKILL) and started again: its memory is gone');
    await relay();
    narrate('the relay ran again and pushed the deposit again');
    await delivered(deposits, 1);

    await expectCredited(walletId, 100, 'a deposit of 100, its second copy after a restart');
  });

  it('when the worker dies after the handler and before its transaction commits, then the deposit is still credited once', async () => {
    const walletId = await newWallet();
    await worker.client.setFaults([{ point: `consumer:${CREDIT_WALLET}:before-commit`, action: 'crash', times: 1 }]);
    const deposits = [await deposit(walletId, 100)];

    await relay();
    await worker.died();
    narrate('injected: the worker died (SIGKILL) once the handler returned, before the delivery committed');
    await worker.restart();
    narrate('the worker was started again; its job, left unfinished, is taken again');
    await delivered(deposits, 0);

    await expectCredited(walletId, 100, 'a deposit of 100 whose first delivery died before committing');
  });
});
