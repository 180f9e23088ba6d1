import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { itTakesTheLabsFaults } from '../support/lab-faults';
import { aroundParticipantTests } from '../support/participant-service';
import { AUTHORITY_ADMIN_TOKEN, NO_EFFECTS, RunningFiscalAuthority, sale } from '../support/fiscal-authority-service';

describe('The fiscal authority service, over HTTP, with its own database', () => {
  let authority: RunningFiscalAuthority;

  const post = (path: string, key: string | undefined, body: unknown) =>
    authority.request('POST', `/v1/${path}`, { body, headers: key === undefined ? {} : { 'idempotency-key': key } });
  const invoice = (key: string, reference: string) => post('invoices', key, sale(reference));
  const cancel = (key: string, invoiceId: string) =>
    post(`invoices/${encodeURIComponent(invoiceId)}/cancellations`, key, { reason: 'the buyer gave up' });
  const returnNote = (key: string, invoiceId: string) =>
    post('return-notes', key, { invoiceId, reason: 'the sale is undone' });
  const invoiceIdOf = (answer: { body: Record<string, unknown> }) => (answer.body.invoice as { id: string }).id;
  /** Rows the service keeps, of every kind: what a refused request must leave as it was. */
  const rowsKept = () => authority.rowsIn('fiscal_authority.documents', 'fiscal_authority.requests');

  const around = aroundParticipantTests(() => RunningFiscalAuthority.start());
  beforeAll(() => {
    authority = around.service();
  });
  /** A fresh reference, and an invoice authorised under it. */
  const anInvoice = async () => {
    const reference = randomUUID();
    return { reference, invoiceId: invoiceIdOf(await invoice(`nf-${reference}`, reference)) };
  };

  it('when one key is asked many times at once, then every call gets the first invoice, and one is filed', async () => {
    const reference = randomUUID();

    const answers = await Promise.all(Array.from({ length: 6 }, () => invoice(`nf-${reference}`, reference)));

    expect(answers.map(({ status }) => status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map(invoiceIdOf)).size).toBe(1);
    expect(await authority.effects(reference)).toEqual({ ...NO_EFFECTS, invoice: 1 });
  });

  it('when a key is asked again later, then the same invoice comes back; another key is another invoice', async () => {
    const reference = randomUUID();

    const first = await invoice(`a-${reference}`, reference);
    const again = await invoice(`a-${reference}`, reference);
    const other = await invoice(`b-${reference}`, reference);

    expect(again.body).toEqual(first.body);
    expect(first.body).toMatchObject({ authorized: true, invoice: { kind: 'invoice', reference, cancelledAt: null } });
    expect(invoiceIdOf(other)).not.toBe(invoiceIdOf(first));
    expect(await authority.effects(reference)).toEqual({ ...NO_EFFECTS, invoice: 2 });
  });

  it('when an invoice is cancelled within its window, then it is cancelled once, and a cancel under another key answers it as cancelled', async () => {
    const { reference, invoiceId } = await anInvoice();

    const cancelled = await cancel(`cancel-${reference}`, invoiceId);
    const again = await cancel(`again-${reference}`, invoiceId);
    const noted = await returnNote(`note-${reference}`, invoiceId);

    expect(cancelled.body).toMatchObject({ authorized: true, invoice: { id: invoiceId } });
    expect((cancelled.body.invoice as { cancelledAt: string | null }).cancelledAt).not.toBeNull();
    expect(again.body).toEqual(cancelled.body);
    expect(noted.body).toEqual({ authorized: false, reason: 'invoice-cancelled' });
    expect(await authority.effects(reference)).toEqual({ ...NO_EFFECTS, invoice: 1, cancellation: 1 });
  });

  it('when a cancel and a return note of one invoice come at once, then they take turns, and one of them is authorised', async () => {
    const { reference, invoiceId } = await anInvoice();

    const [cancelled, noted] = await Promise.all([
      cancel(`cancel-${reference}`, invoiceId),
      returnNote(`note-${reference}`, invoiceId),
    ]);

    expect([cancelled.body.authorized, noted.body.authorized].filter(Boolean)).toHaveLength(1);
    const effects = await authority.effects(reference);
    expect(effects.cancellation + effects.returnNote).toBe(1);
  });

  it('when a return note is asked twice under two keys, then one is filed, and both get it; a cancel after it is refused', async () => {
    const { reference, invoiceId } = await anInvoice();

    const first = await returnNote(`note-${reference}`, invoiceId);
    const second = await returnNote(`again-${reference}`, invoiceId);
    const cancelled = await cancel(`cancel-${reference}`, invoiceId);

    expect(first.body).toMatchObject({
      authorized: true,
      returnNote: { kind: 'return-note', invoiceId, reference, cancelledAt: null },
    });
    expect(second.body).toEqual(first.body);
    expect(cancelled.body).toEqual({ authorized: false, reason: 'invoice-reversed' });
    expect(await authority.effects(reference)).toEqual({ ...NO_EFFECTS, invoice: 1, returnNote: 1 });
  });

  it('when a cancel or a return note names an invoice it does not know, then it is refused as unknown', async () => {
    const reference = randomUUID();

    const cancelled = await cancel(`cancel-${reference}`, 'inv_nobody');
    const noted = await returnNote(`note-${reference}`, 'inv_nobody');

    expect([cancelled.body, noted.body]).toEqual([
      { authorized: false, reason: 'unknown-invoice' },
      { authorized: false, reason: 'unknown-invoice' },
    ]);
  });

  it.each([
    ['no Idempotency-Key', 'invoices', undefined, sale('r'), 'missing-idempotency-key', undefined],
    ['a negative amount', 'invoices', 'k1', { ...sale('r'), amountCents: -5 }, 'invalid-request', 'amountCents'],
    ['no buyer', 'invoices', 'k2', { ...sale('r'), buyer: undefined }, 'invalid-request', 'buyer'],
    ['a field it does not know', 'invoices', 'k3', { ...sale('r'), tip: 1 }, 'invalid-request', 'tip'],
    ['no reason', 'invoices/inv_x/cancellations', 'k4', {}, 'invalid-request', 'reason'],
    ['no invoice', 'return-notes', 'k5', { reason: 'undone' }, 'invalid-request', 'invoiceId'],
  ] as const)(
    'when a request has %s, then it is a 400 that says why, and NO_EFFECTS is written',
    async (_, path, key, body, reason, field) => {
      const before = await rowsKept();

      const { status, body: answer } = await post(path, key, body);

      expect({ status, reason: answer.reason }).toEqual({ status: 400, reason });
      if (field) expect(answer.details).toHaveProperty(field);
      expect(await rowsKept()).toBe(before);
    },
  );

  it('when the admin API is called with a wrong token, then it is refused; on a service with no token, it is not there', async () => {
    const closed = await RunningFiscalAuthority.start({ adminToken: null });
    try {
      const wrong = await authority.request('GET', '/admin/faults', { headers: { authorization: 'Bearer nope' } });
      const absent = await closed.request('POST', '/admin/faults', {
        body: { fault: 'reject' },
        headers: { authorization: `Bearer ${AUTHORITY_ADMIN_TOKEN}` },
      });

      expect([wrong.status, absent.status]).toEqual([401, 404]);
    } finally {
      await closed.stop();
    }
  });

  it('when a request is held, then it is in flight with NO_EFFECTS filed, and filed once processed', async () => {
    const reference = randomUUID();
    await authority.fault({ fault: 'hold', operation: 'invoice', delayMs: 1_000 });

    const held = invoice(`a-${reference}`, reference);
    await eventually(async () =>
      expect((await authority.request('GET', '/admin/faults', adminHeaders)).body).toMatchObject({
        rules: [],
        inFlight: 1,
      }),
    );
    const during = await authority.effects(reference);

    expect(during).toEqual(NO_EFFECTS);
    expect((await held).body.authorized).toBe(true);
    expect(await authority.effects(reference)).toEqual({ ...NO_EFFECTS, invoice: 1 });
  });

  itTakesTheLabsFaults(() => ({
    service: authority,
    operation: 'invoice',
    refusal: 'reject',
    refused: { authorized: false, reason: 'injected-rejection' },
    perform: (key, reference) => invoice(key, reference),
    succeeded: (body) => body.authorized === true,
    effects: (reference) => authority.effects(reference),
    none: NO_EFFECTS,
    one: { ...NO_EFFECTS, invoice: 1 },
  }));
});

describe("The fiscal authority's cancel window, by the database's clock", () => {
  let authority: RunningFiscalAuthority;

  const post = (path: string, key: string, body: unknown) =>
    authority.request('POST', `/v1/${path}`, { body, headers: { 'idempotency-key': key } });

  beforeAll(async () => {
    authority = await RunningFiscalAuthority.start({ cancelWindowSeconds: 1 });
  });
  afterAll(() => authority.stop());

  it('when the window has closed, then a cancel is refused as cancel-window-closed, and a return note reverses the invoice', async () => {
    const reference = randomUUID();
    const { body } = await post('invoices', `nf-${reference}`, sale(reference));
    const { id: invoiceId, authorizedAt } = body.invoice as { id: string; authorizedAt: string };
    await eventually(
      async () =>
        (
          await authority.query<{ closed: boolean }>(`SELECT now() > $1::timestamptz + interval '1 second' AS closed`, [
            authorizedAt,
          ])
        )[0].closed,
      { what: "the invoice's window to close" },
    );

    const cancelled = await post(`invoices/${invoiceId}/cancellations`, `cancel-${reference}`, { reason: 'late' });
    const noted = await post('return-notes', `note-${reference}`, { invoiceId, reason: 'late' });

    expect(cancelled.body).toEqual({ authorized: false, reason: 'cancel-window-closed' });
    expect(noted.body).toMatchObject({ authorized: true, returnNote: { invoiceId } });
    expect(await authority.effects(reference)).toEqual({ ...NO_EFFECTS, invoice: 1, returnNote: 1 });
  });
});

const adminHeaders = { headers: { authorization: `Bearer ${AUTHORITY_ADMIN_TOKEN}` } };
