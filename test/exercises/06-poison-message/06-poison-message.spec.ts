import { Module } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { OutboxPublisher } from '../../../src/infra/outbox';
import { quiet } from '../../support/quiet';
import { ADMIN_TOKEN, TestApp } from '../../support/test-app';
import { TestDatabase } from '../../support/test-database';
import { EXERCISE_ENV } from '../support/exercise-app';
import { implementation, narrate } from '../support/track';
import { ISSUE_INVOICE, OrderConfirmed, type PoisonMessageAnswer, schema } from './exercise';

const answer = implementation<PoisonMessageAnswer>(__dirname);

@Module({ providers: [answer.InvoiceIssuer] })
class InvoicingModule {}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds or the deadline passes; says which. The assertion after it says what broke. */
async function settles(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await pause(100);
  }
}

interface Order {
  orderId: string;
  country: string;
  totalCents: number;
  messageId: string;
}

interface DeadLetterView {
  id: string;
  messageId: string;
  error: string;
}

/**
 * Exercise 06: the poison message. Four orders; one of them (a buyer in Iceland, whose tax rate
 * nobody added) fails on every attempt. Meanwhile a real lock (the month-end report holding the
 * invoices table) makes the first attempt of every good order time out. The good orders must be
 * invoiced while the poison one is stuck; the poison one must wait in the dead letters, where an
 * operator sees it; once the rate is added and the dead letter redriven, it is invoiced, once.
 */
describe('Exercise 06: the poison message', () => {
  let database: TestDatabase;
  let app: TestApp;

  const confirm = async (country: string, totalCents: number): Promise<Order> => {
    const orderId = randomUUID();
    const messageId = await app
      .get(TransactionHost)
      .withTransaction(() =>
        app.get(OutboxPublisher).publish(OrderConfirmed, { orderId, country, totalCents }, { aggregateId: orderId }),
      );
    return { orderId, country, totalCents, messageId };
  };
  const invoicesOf = async (orders: Order[]) => {
    const rows = await database.query<{ order_id: string; n: number }>(
      `SELECT order_id, count(*)::int AS n FROM ex06.invoices WHERE order_id = ANY($1::uuid[]) GROUP BY order_id`,
      [orders.map((order) => order.orderId)],
    );
    return new Map(rows.map((row) => [row.order_id, row.n]));
  };
  /** What an operator sees: GET /admin/dead-letters for invoicing. */
  const deadLetters = async (): Promise<DeadLetterView[]> =>
    (
      await app
        .http()
        .get(`/admin/dead-letters?consumer=${ISSUE_INVOICE}`)
        .set('authorization', `Bearer ${ADMIN_TOKEN}`)
        .expect(200)
    ).body as DeadLetterView[];
  /** The transport tried this delivery at least once: a recorded attempt, or an inbox row. */
  const tried = async (order: Order) =>
    (
      await database.query(
        `SELECT 1 FROM outbox.delivery_attempts WHERE message_id = $1 AND consumer = $2
         UNION ALL SELECT 1 FROM outbox.inbox WHERE message_id = $1 AND consumer = $2`,
        [order.messageId, ISSUE_INVOICE],
      )
    ).length > 0;
  const failedAttempts = async (order: Order) =>
    (
      await database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox.delivery_attempts WHERE message_id = $1 AND consumer = $2 AND outcome = 'failed'`,
        [order.messageId, ISSUE_INVOICE],
      )
    )[0].n;
  /** The attempt number of the delivery's last failure that was left to be retried (0: none). */
  const lastFailedAttempt = async (order: Order) =>
    (
      await database.query<{ n: number }>(
        `SELECT coalesce(max(attempt), 0)::int AS n FROM outbox.delivery_attempts
          WHERE message_id = $1 AND consumer = $2 AND outcome = 'failed'`,
        [order.messageId, ISSUE_INVOICE],
      )
    )[0].n;
  const lockTimeouts = async (orders: Order[]) =>
    (
      await database.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox.delivery_attempts
          WHERE message_id = ANY($1::uuid[]) AND consumer = $2 AND error LIKE '%lock timeout%'`,
        [orders.map((order) => order.messageId), ISSUE_INVOICE],
      )
    )[0].n;
  const handledAsDone = async (order: Order) =>
    (
      await database.query(`SELECT 1 FROM outbox.inbox WHERE message_id = $1 AND consumer = $2`, [
        order.messageId,
        ISSUE_INVOICE,
      ])
    ).length > 0;

  beforeAll(async () => {
    database = await TestDatabase.create();
    await database.query(schema);
    app = await TestApp.start({
      database,
      imports: [InvoicingModule],
      env: {
        ...EXERCISE_ENV,
        // Retries as a real deployment spaces them: 10 attempts, from 1 s apart to minutes.
        OUTBOX_ATTEMPTS: '10',
        OUTBOX_BACKOFF_MS: '1000',
        // A statement that waits on a lock gives up after 300 ms: the delivery fails and is retried.
        DATABASE_LOCK_TIMEOUT_MS: '300',
      },
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.stop();
    await database?.drop();
  });

  it('when one order can never be invoiced and a lock holds up the others, then the others are invoiced, it waits in the dead letters, and after the fix and a redrive it is invoiced once', async () => {
    const report = new Client({ connectionString: database.url });
    await report.connect();
    let good: Order[];
    let poison: Order;
    try {
      await report.query('BEGIN');
      await report.query('LOCK TABLE ex06.invoices IN SHARE MODE');
      narrate('FAULT: the month-end report locks ex06.invoices: every insert waits, and gives up after 300 ms');

      good = [await confirm('PT', 12_000), await confirm('DE', 4_500), await confirm('FR', 9_900)];
      poison = await confirm('IS', 7_000);
      narrate('the shop confirmed 4 orders: PT, DE, FR, and IS (nobody added the tax rate of Iceland)');
      await settles(async () => (await Promise.all(good.map(tried))).every(Boolean), 5_000);
    } finally {
      await report.end(); // the report's transaction ends with its session
    }
    const orders = [...good, poison];
    narrate(
      `the report is done, the lock is gone; ${await lockTimeouts(good)} attempt(s) of good orders timed out on it`,
    );

    // 1. The good orders flow while the poison one is stuck. A good order dead-lettered, or handled
    // and still without an invoice a moment later, ends the wait at once: it will never be invoiced.
    const handledWithoutInvoice = async () => {
      const invoices = await invoicesOf(good);
      const unpaid = good.filter((order) => !invoices.has(order.orderId));
      return (await Promise.all(unpaid.map(handledAsDone))).some(Boolean);
    };
    await settles(async () => {
      const letters = await deadLetters();
      if (good.some((order) => letters.some((letter) => letter.messageId === order.messageId))) return true;
      const invoices = await invoicesOf(good);
      if (good.every((order) => invoices.has(order.orderId))) return true;
      return (await handledWithoutInvoice()) && (await pause(300), await handledWithoutInvoice());
    }, 10_000);
    const letters = await deadLetters();
    const invoices = await invoicesOf(orders);
    narrate(
      `invoiced: ${
        orders
          .filter((o) => invoices.has(o.orderId))
          .map((o) => o.country)
          .join(', ') || 'none'
      }`,
    );
    const deadGood = good.filter((order) => letters.some((letter) => letter.messageId === order.messageId));
    if (deadGood.length > 0) {
      const { error } = letters.find((letter) => letter.messageId === deadGood[0].messageId)!;
      throw new Error(
        `the good order(s) from ${deadGood.map((order) => order.country).join(', ')} went to the dead letters for ` +
          `a failure that a retry fixes ("${error}"): they should have been retried, and invoiced`,
      );
    }
    const notInvoiced = good.filter((order) => !invoices.has(order.orderId));
    if (notInvoiced.length > 0) {
      throw new Error(
        `the good order(s) from ${notInvoiced.map((order) => order.country).join(', ')} were never invoiced, ` +
          'though only the order from IS is broken',
      );
    }

    // 2. The poison one waits in the dead letters, where an operator sees it: by its third attempt
    // at the latest (its fourth is seconds away). The wait ends as soon as the order's fate shows:
    // dead-lettered, invoiced, handled without an invoice, or a third failure left to be retried.
    await settles(async () => {
      if ((await deadLetters()).some((letter) => letter.messageId === poison.messageId)) return true;
      if ((await invoicesOf([poison])).has(poison.orderId) || (await handledAsDone(poison))) return true;
      return (await lastFailedAttempt(poison)) >= 3;
    }, 5_000);
    const poisonLetter = (await deadLetters()).find((letter) => letter.messageId === poison.messageId);
    if (!poisonLetter) {
      const [issued] = await database.query<{ tax_cents: number }>(
        `SELECT tax_cents FROM ex06.invoices WHERE order_id = $1`,
        [poison.orderId],
      );
      if (issued) {
        throw new Error(
          `the order from IS was invoiced with ${issued.tax_cents} cents of tax, though nobody knows the tax rate ` +
            'of Iceland: an invoice with a made-up tax, and no dead letter for an operator to see',
        );
      }
      if (await handledAsDone(poison)) {
        throw new Error(
          'the order from IS was recorded as handled, without an invoice and without a dead letter: it is lost, ' +
            'and after the fix there is nothing to redrive',
        );
      }
      const failed = await failedAttempts(poison);
      throw new Error(
        `the order from IS is not in the dead letters after ${failed} failed attempt(s): it waits for attempt ` +
          `${failed + 1} of 10, and the last is minutes away, though no retry can bring its missing tax rate`,
      );
    }
    narrate(`the order from IS waits in the dead letters (GET /admin/dead-letters): "${poisonLetter.error}"`);

    // 3. The fix, the redrive: invoiced once; nothing lost, nothing doubled.
    await database.query(`INSERT INTO ex06.tax_rates (country, rate_percent) VALUES ('IS', 24)`);
    await app
      .http()
      .post(`/admin/dead-letters/${poisonLetter.id}/redrive`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .expect(200);
    narrate('the fix: an operator adds the tax rate of Iceland, and redrives the dead letter (POST .../redrive)');
    await settles(async () => (await invoicesOf([poison])).has(poison.orderId), 10_000);
    await quiet(app);

    const final = await invoicesOf(orders);
    const open = await deadLetters();
    narrate(
      `in the end: ${orders.map((o) => `${o.country} ${final.get(o.orderId) ?? 0}`).join(', ')} invoice(s); ${open.length} open dead letter(s)`,
    );
    const broken = [
      ...orders.flatMap((order) => {
        const n = final.get(order.orderId) ?? 0;
        if (n === 1) return [];
        return [`the order from ${order.country} has ${n} invoices after the redrive`];
      }),
      ...open.map((letter) => `a dead letter is still open: "${letter.error}"`),
    ];
    if (broken.length > 0) throw new Error(`${broken.join('; ')} (every order must end with exactly one invoice)`);
  });
});
