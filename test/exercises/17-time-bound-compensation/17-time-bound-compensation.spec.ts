import { CheckoutClient } from '../../support/checkout-client';
import { eventually } from '../../support/eventually';
import { RunningFiscalAuthority } from '../../support/fiscal-authority-service';
import { quiet } from '../../support/quiet';
import { TestApp } from '../../support/test-app';
import { EXERCISE_ENV } from '../support/exercise-app';
import { invariant, narrate, narrateTimeline } from '../support/track';
import { billingClock, TimeBoundCompensationWiring } from './time-bound-compensation.wiring';

/** The authority cancels an invoice for this long after authorising it (SEFAZ: usually 24 hours); billing is told the same. */
const WINDOW_SECONDS = 2;
const WINDOW_MS = WINDOW_SECONDS * 1_000;
/** Billing waits this long for each answer of the authority. */
const TIMEOUT_MS = 1_000;
/** How old the invoice is when the refund whose cancel's answer is lost is sent: its retry comes after the window. */
const LOST_ANSWER_AT_MS = 850;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1_000).toFixed(1)} s`;

/**
 * Exercise 17 (lesson 004: "an authorised invoice can be cancelled only within the authority's
 * window, usually 24 hours; after it, only a return note"; ADR 0106): completed checkouts with an
 * invoice at the real fiscal authority service over HTTP, with a window of two seconds, refunded
 * by an operator. Your answer reverses the invoice on the refund. Every count of documents is the
 * authority's own; what billing recorded, and what waits for a person, is billing's.
 */
describe('Exercise 17: time-bound compensation', () => {
  let authority: RunningFiscalAuthority;
  let app: TestApp;
  let client: CheckoutClient;
  /** Sold and invoiced once the app started, for the tests that need an invoice some time old. */
  const invoiced: { id: string; authorizedAt: Date }[] = [];

  beforeAll(async () => {
    authority = await RunningFiscalAuthority.start({ cancelWindowSeconds: WINDOW_SECONDS });
    app = await TestApp.start({
      imports: [TimeBoundCompensationWiring],
      env: {
        ...EXERCISE_ENV,
        FISCAL_AUTHORITY_URL: authority.url,
        FISCAL_AUTHORITY_TIMEOUT_MS: String(TIMEOUT_MS),
        INVOICE_CANCEL_WINDOW_SECONDS: String(WINDOW_SECONDS),
        // The sweep, every 100 ms, judges a message delivered 200 ms after its push: quiet comes soon.
        OUTBOX_REDELIVER_AFTER_MS: '200',
        OUTBOX_SWEEP_INTERVAL_MS: '100',
        // A reversal that keeps failing is a dead letter after three attempts, 50 and 100 ms apart.
        OUTBOX_ATTEMPTS: '3',
      },
    });
    client = new CheckoutClient(app);
    invoiced.push(...(await Promise.all([sold(), sold()])));
  });
  afterEach(async () => {
    billingClock.behindMs = 0;
    await authority.clearFaults();
  });
  afterAll(async () => {
    await app?.stop();
    await authority?.stop();
  });

  /** A completed checkout, which its invoice step invoiced at the authority on the way, and when. */
  async function sold(): Promise<{ id: string; authorizedAt: Date }> {
    const id = await client.start({ userId: (await client.createUser()).id });
    await client.until(id, ['COMPLETED']);
    const [invoice] = await app.database.query<{ authorized_at: Date }>(
      `SELECT authorized_at FROM billing.invoices WHERE checkout_id = $1`,
      [id],
    );
    if (!invoice) throw new Error(`the checkout ${id} completed without an invoice`);
    return { id, authorizedAt: new Date(invoice.authorized_at) };
  }

  /** How long ago the authority authorised the invoice, by its clock (its database's, the one the tests share). */
  const age = (sale: { authorizedAt: Date }) => Date.now() - sale.authorizedAt.getTime();

  /** An operator refunds the sale: billing gives the money back and announces it; its reaction reverses the invoice. */
  async function refund(id: string): Promise<void> {
    await client.admin(app.http().post(`/admin/payments/${id}/refund`)).expect(200);
  }

  /**
   * Once the app is quiet and the authority has answered everything: the documents it filed under
   * the checkout, how billing recorded the invoice, what billing announced, and what waits for a
   * person (the refund's reversal as a dead letter).
   */
  async function outcome(id: string) {
    await Promise.all([quiet(app), authority.untilAnswered()]);
    const { invoice, cancellation, returnNote } = await authority.effects(id);
    const [ours] = await app.database.query<{ status: string }>(
      `SELECT status FROM billing.invoices WHERE checkout_id = $1`,
      [id],
    );
    const [{ n: deadLetters }] = await app.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox.dead_letters
        WHERE consumer = 'billing.reverse-invoice' AND status = 'dead' AND message::text LIKE '%' || $1 || '%'`,
      [id],
    );
    const announced = (await client.timeline(id))
      .filter((entry) => entry.kind === 'event' && /^billing\.invoice-(cancelled|reversed)\./.test(String(entry.type)))
      .map((entry) => String(entry.type));
    const seen = { invoice, cancellation, returnNote, ours: ours?.status, announced, deadLetters };
    narrate(`at the authority: ${JSON.stringify({ invoice, cancellation, returnNote })}`);
    narrate(
      `billing: the invoice is ${String(ours?.status)}; announced ${JSON.stringify(announced)}; dead letters: ${deadLetters}`,
    );
    await narrateTimeline(app, id);
    return seen;
  }

  /** The invoice reversed once, by `by`, counted at the authority; and billing recording it so, with nothing left to a person. */
  function reversedOnce(what: string, by: 'cancel' | 'return-note', seen: Awaited<ReturnType<typeof outcome>>): void {
    const cancelled = by === 'cancel';
    invariant(
      `${what}: one ${cancelled ? 'cancellation, no return note' : 'return note, no cancellation'} (counted at the authority)`,
      { invoice: seen.invoice, cancellation: seen.cancellation, returnNote: seen.returnNote },
      { invoice: 1, cancellation: cancelled ? 1 : 0, returnNote: cancelled ? 0 : 1 },
    );
    const status = cancelled ? 'cancelled' : 'reversed';
    invariant(
      `billing records the invoice ${status} as the authority has it, announces it once, and leaves nothing to a person`,
      { ours: seen.ours, announced: seen.announced, deadLetters: seen.deadLetters },
      { ours: status, announced: [`billing.invoice-${status}.v1`], deadLetters: 0 },
    );
  }

  it('when a sale is refunded inside the window, then its invoice is cancelled, and nothing else is filed', async () => {
    const sale = await sold();
    narrate(`the authority authorised the invoice; its window is ${WINDOW_SECONDS} s`);
    await refund(sale.id);
    narrate(`refunded ${seconds(age(sale))} after the invoice`);

    reversedOnce('inside the window the invoice is cancelled', 'cancel', await outcome(sale.id));
  });

  it("when the cancel's answer is lost and the refund is delivered again after the window, then that one cancel is the reversal", async () => {
    // The refund leaves LOST_ANSWER_AT_MS after the invoice: the cancel is decided inside the
    // window, and the retry after billing's timeout comes after it.
    const sale = await sold();
    await sleep(Math.max(0, LOST_ANSWER_AT_MS - age(sale)));
    await authority.fault({ fault: 'late', operation: 'cancellation', delayMs: TIMEOUT_MS + 100 });
    narrate(
      `armed: the authority makes the next cancel at once and answers it ${seconds(TIMEOUT_MS + 100)} later; billing waits ${seconds(TIMEOUT_MS)}, then the refund's delivery fails and is tried again`,
    );
    await refund(sale.id);
    // Told when the authority has done something about the invoice (the answer waits), or after 2 s.
    const reversal = await eventually(
      async () => {
        const { cancellation, returnNote } = await authority.effects(sale.id);
        expect(cancellation + returnNote).toBeGreaterThan(0);
        return cancellation ? 'cancelled' : 'reversed by a return note';
      },
      { timeoutMs: 2_000, intervalMs: 20, what: 'the authority to reverse the invoice' },
    ).catch(() => 'not reversed yet');
    narrate(
      `the authority has the invoice ${reversal}, ${seconds(age(sale))} after authorising it (of a ${WINDOW_SECONDS} s window); billing does not know yet`,
    );

    reversedOnce('the refund delivered again does nothing twice: the invoice stays', 'cancel', await outcome(sale.id));
  });

  it("when billing's clock runs behind the authority's, then a cancel it sends inside its window is refused as late, and a return note reverses the invoice", async () => {
    const sale = invoiced[0];
    await eventually(async () => expect(age(sale)).toBeGreaterThan(WINDOW_MS + 100), {
      timeoutMs: 10_000,
      what: "the invoice's window to close at the authority",
    });
    // Planted: the answer gets billing's clock, set back so that by it the invoice is 0.3 s old.
    billingClock.behindMs = age(sale) - 300;
    narrate(
      `planted: billing's clock runs ${seconds(billingClock.behindMs)} behind the authority's: by the authority's the window closed ${seconds(age(sale) - WINDOW_MS)} ago, by ours ${seconds(WINDOW_MS - 300)} of it are left`,
    );
    await refund(sale.id);

    reversedOnce(
      'a cancel refused as late is no reversal: the invoice is reversed by a return note',
      'return-note',
      await outcome(sale.id),
    );
  });

  it('when a sale is refunded after the window, then a return note reverses its invoice', async () => {
    const sale = invoiced[1];
    await sleep(Math.max(0, WINDOW_MS + 100 - age(sale)));
    await refund(sale.id);
    narrate(`refunded ${seconds(age(sale))} after the invoice, its window of ${WINDOW_SECONDS} s closed`);

    reversedOnce('after the window the invoice is reversed by a return note', 'return-note', await outcome(sale.id));
  });
});
