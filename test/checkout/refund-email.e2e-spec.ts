import { Faults } from '../../src/infra/faults/faults';
import { AppProcess } from '../support/app-process';
import { CheckoutClient } from '../support/checkout-client';
import { ProcessClient } from '../support/process-client';
import { QUIET_ENV, quiet } from '../support/quiet';
import { SmtpSink } from '../support/smtp-sink';
import { ADMIN_TOKEN, newQueuePrefix, TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

/** The Message-IDs of a checkout's welcome and of its correction (MAIL_FROM's domain is checkout.local). */
const welcomeId = (checkoutId: string) => `<welcome.${checkoutId}@checkout.local>`;
const correctionId = (checkoutId: string) => `<welcome-correction.${checkoutId}@checkout.local>`;

/**
 * A refund comes after the welcome email, which cannot be unsent: the buyer gets a second email
 * that corrects it (a semantic compensation), once, counted by a real SMTP server once the system
 * is quiet.
 */
describe('The email correcting the welcome after a refund, over SMTP', () => {
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await SmtpSink.start();
  });
  afterAll(() => sink.stop());

  describe('in one process', () => {
    let app: TestApp;
    let client: CheckoutClient;

    beforeAll(async () => {
      app = await TestApp.start({
        env: { ...QUIET_ENV, SMTP_URL: sink.url, OUTBOX_RELAY_INTERVAL_MS: '50', OUTBOX_BACKOFF_MS: '20' },
      });
      client = new CheckoutClient(app);
    });
    afterEach(() => app.get(Faults).clear());
    afterAll(() => app.stop());

    it('when completed checkouts of both modes are refunded (twice) with every message delivered twice, then each refunded buyer got one correction, to the welcome address, and no one else got one', async () => {
      app.get(Faults).set([{ point: 'relay.push', action: 'duplicate' }]);
      const buyer = await client.createUser();
      const modes = ['choreography', 'orchestration'];
      const refunded = await Promise.all(modes.map((mode) => client.start({ userId: buyer.id, mode })));
      const kept = await Promise.all(modes.map((mode) => client.start({ userId: buyer.id, mode })));
      for (const id of [...refunded, ...kept]) await client.until(id, ['COMPLETED']);

      for (const id of refunded) {
        await client.admin(app.http().post(`/admin/payments/${id}/refund`)).expect(200);
        await client.admin(app.http().post(`/admin/payments/${id}/refund`)).expect(200);
      }
      await quiet(app);

      const count = (messageId: (id: string) => string) => (id: string) => sink.withHeader('message-id', messageId(id));
      expect(refunded.map((id) => count(correctionId)(id).length)).toEqual([1, 1]);
      expect(kept.map((id) => count(correctionId)(id).length)).toEqual([0, 0]);
      expect([...refunded, ...kept].map((id) => count(welcomeId)(id).length)).toEqual([1, 1, 1, 1]);
      const [correction] = count(correctionId)(refunded[0]);
      expect(correction.to).toEqual([buyer.email]);
      expect(correction.headers.get('subject')).toBe('Your payment of 9.90 USD was refunded');
      expect((await client.invariants([...refunded, ...kept])).violations).toEqual([]);
    });
  });

  describe('when the process dies', () => {
    const queuePrefix = newQueuePrefix();
    let database: TestDatabase;
    let app: AppProcess | undefined;

    beforeAll(async () => {
      database = await TestDatabase.create();
    });
    afterAll(async () => {
      await app?.stop();
      await database.drop();
    });

    const boot = async (): Promise<ProcessClient> => {
      app = await AppProcess.start({
        DATABASE_URL: database.url,
        QUEUE_PREFIX: queuePrefix,
        SMTP_URL: sink.url,
        ADMIN_TOKEN,
        FAULT_INJECTION: 'true',
        LOG_LEVEL: 'warn',
        OUTBOX_RELAY_INTERVAL_MS: '100',
        // A dead process's jobs are taken back two seconds later; the sweep re-pushes after three.
        OUTBOX_JOB_LOCK_MS: '2000',
        OUTBOX_REDELIVER_AFTER_MS: '3000',
        OUTBOX_SWEEP_INTERVAL_MS: '500',
      });
      await app.untilHealthy(120_000);
      return new ProcessClient(app.url);
    };
    const refund = (client: ProcessClient, id: string) => client.call('POST', `/admin/payments/${id}/refund`, 200);

    /** Arms a crash at `point`, refunds the checkout, and waits for the process to die there. */
    const crashWhileCorrecting = async (client: ProcessClient, id: string, point: string) => {
      await client.setFaults([{ point, action: 'crash', times: 1 }]);
      // The process may die before it answers: the operator would ask again, as the next process is.
      await refund(client, id).catch(() => undefined);
      expect(await app!.exitCode(60_000)).toBeNull(); // killed by a signal, not exited
      expect(app!.output.join('\n')).toContain(`Injected crash at ${point}:`);
    };

    it('before the email or after its commit, then the restarted process sends each correction once', async () => {
      let client = await boot();
      const buyer = await client.createUser();
      const [beforeEmail, afterCommit] = [
        await client.start({ userId: buyer.id }),
        await client.start({ userId: buyer.id }),
      ];
      for (const id of [beforeEmail, afterCommit]) await client.until(id, ['COMPLETED']);

      await crashWhileCorrecting(client, beforeEmail, 'step:notifications.correct-welcome-email');
      client = await boot();
      await refund(client, beforeEmail);
      await crashWhileCorrecting(client, afterCommit, 'step:notifications.correct-welcome-email:after-commit');
      client = await boot();
      await refund(client, afterCommit);
      await quiet({ database, queuePrefix }, { stableForMs: 4_000, timeoutMs: 60_000 });

      const ids = [beforeEmail, afterCommit];
      expect(ids.map((id) => sink.withHeader('message-id', correctionId(id)).length)).toEqual([1, 1]);
      expect(ids.map((id) => sink.withHeader('message-id', welcomeId(id)).length)).toEqual([1, 1]);
      const { violations } = await client.invariants();
      expect(violations.filter((v) => ids.includes(v.checkoutId as string))).toEqual([]);
    }, 300_000);
  });
});
