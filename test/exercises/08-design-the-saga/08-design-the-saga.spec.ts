import { randomUUID } from 'node:crypto';
import { operationsAt } from '../../support/at-the-participants';
import { CheckoutClient } from '../../support/checkout-client';
import { quiet } from '../../support/quiet';
import { runGatewayUrl } from '../../support/run-participants';
import { SmtpSink } from '../../support/smtp-sink';
import { EXERCISE_ENV } from '../support/exercise-app';
import { TestApp } from '../../support/test-app';
import { implementation, invariant, narrate } from '../support/track';
import type { DesignTheSaga } from './exercise';
import { type Checkout, CheckoutModules, runSaga } from './saga-runner';

const { checkoutSaga } = implementation<DesignTheSaga>(__dirname);

/** What the outside world saw of one checkout: the buyer's card statement, their access, their inbox. */
interface Seen {
  /** The operations the card gateway approved under the checkout, in order. */
  statement: string[];
  /** Authorizations neither captured, voided nor refunded: money blocked on the card. */
  held: number;
  /** Access granted and not taken back (active, or provisional until the capture). */
  access: number;
  /** Welcome emails the SMTP server received for the buyer. */
  emails: number;
}

/**
 * Exercise 08 (lesson 002, exercise 5): design the saga. Each checkout below runs the exported
 * design through the real modules, one with a real "no" at one step; what is judged is what the
 * buyer sees afterwards at their bank and in their inbox.
 */
describe('Exercise 08: design the saga', () => {
  let app: TestApp;
  let sink: SmtpSink;
  let client: CheckoutClient;
  let modules: CheckoutModules;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    app = await TestApp.start({ env: { ...EXERCISE_ENV, SMTP_URL: sink.url } });
    client = new CheckoutClient(app);
    modules = new CheckoutModules(app);
  });
  afterAll(async () => {
    await app?.stop();
    await sink?.stop();
  });

  /** A buyer checks out; the design runs; once the app is quiet, what left it is read. */
  async function checkOut(
    buyer: { country: string },
    order: { planId: string; paymentMethod: Checkout['paymentMethod'] },
  ): Promise<Seen> {
    const { id: userId, email } = await client.createUser(buyer);
    const checkout: Checkout = { id: randomUUID(), userId, ...order };
    const run = await runSaga(checkoutSaga, checkout, modules);
    await quiet(app);
    const seen = await seenFrom(checkout.id, email);
    narrate(`the saga ran: ${run.trail.map((step) => `${step.did} (${step.answer})`).join(' -> ')}`);
    narrate(`the buyer's statement: ${seen.statement.join(', ') || 'nothing'}; held now: ${seen.held}`);
    narrate(`access: ${seen.access}; welcome emails at the mail server: ${seen.emails}`);
    return seen;
  }

  async function seenFrom(checkoutId: string, email: string): Promise<Seen> {
    // At the card gateway service, in the order it filed them.
    const operations = (await operationsAt(runGatewayUrl(), checkoutId)).filter((o) => o.approved);
    const followed = new Set(operations.filter((o) => o.operation !== 'authorize').map((o) => o.authorizationId));
    const [{ n: access }] = await app.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM content.entitlements WHERE checkout_id = $1 AND status <> 'revoked'`,
      [checkoutId],
    );
    return {
      statement: operations.map((o) => o.operation),
      held: operations.filter((o) => o.operation === 'authorize' && !followed.has(o.authorizationId)).length,
      access,
      emails: sink.received.filter((mail) => mail.to.includes(email)).length,
    };
  }

  /** A checkout that does not sell must cost the buyer nothing, as the outside world saw it. */
  function costsNothing(seen: Seen): void {
    invariant(
      "no charge on the buyer's statement for a sale that did not happen (a refund does not erase one)",
      seen.statement.filter((operation) => operation === 'capture' || operation === 'refund'),
      [],
    );
    invariant("no money left held on the buyer's card: every authorization released", seen.held, 0);
    invariant('no access for a sale that did not happen', seen.access, 0);
    invariant('no welcome email for a sale that did not happen (an email cannot be unsent)', seen.emails, 0);
  }

  it("when the plan cannot be sold in the buyer's country (access refused), then the buyer is never charged, no money stays held and no email goes out", async () => {
    narrate('a buyer in Japan orders the premium plan, which is not licensed there: content will say no');
    const seen = await checkOut({ country: 'JP' }, { planId: 'premium', paymentMethod: 'pm_card_ok' });

    costsNothing(seen);
  });

  it('when the card issuer declines the capture, then nothing is charged, no money stays held, no access is left and no email goes out', async () => {
    narrate('a buyer whose card authorizes but is declined when the money is taken');
    const seen = await checkOut({ country: 'PT' }, { planId: 'basic', paymentMethod: 'pm_card_capture_declined' });

    costsNothing(seen);
  });

  it('when nothing says no, then the buyer is charged once, has access and gets one welcome email', async () => {
    narrate('a buyer in Portugal orders the basic plan with a good card');
    const seen = await checkOut({ country: 'PT' }, { planId: 'basic', paymentMethod: 'pm_card_ok' });

    invariant(
      'a sale charges the buyer once, and keeps the money',
      seen.statement.filter((operation) => operation === 'capture' || operation === 'refund'),
      ['capture'],
    );
    invariant("no money left held on the buyer's card: the authorization was captured", seen.held, 0);
    invariant('the buyer who paid has access (never charged without access)', seen.access, 1);
    invariant('the buyer gets one welcome email', seen.emails, 1);
  });
});
