import { randomUUID } from 'node:crypto';
import { isOutsideFailure } from '../../src/infra/failure-source';
import { HttpFiscalAuthority } from '../../src/modules/billing/invoicing/http-fiscal-authority';
import { eventually } from '../support/eventually';
import { NO_EFFECTS, RunningFiscalAuthority, sale } from '../support/fiscal-authority-service';
import { aroundParticipantTests } from '../support/participant-service';

describe("The app's HTTP client of the fiscal authority, against the real service", () => {
  const around = aroundParticipantTests(() => RunningFiscalAuthority.start());
  let authority: RunningFiscalAuthority;
  let client: HttpFiscalAuthority;

  /** The invoices the client asked for: its attempts, counted where they leave. */
  const invoiceRequests = () => around.requestsTo('invoices');
  /** What a call threw, for a test that expects it to throw. */
  const failureOf = (call: Promise<unknown>) =>
    call.then(
      () => new Error('it answered'),
      (error: Error) => error,
    );

  beforeAll(() => {
    authority = around.service();
    client = new HttpFiscalAuthority({ url: authority.url, timeoutMs: 500, attempts: 3, backoffMs: 20 });
  });

  it('when an invoice is issued, cancelled and then reversed, then each answer reads as the port says, and the listing holds the invoice', async () => {
    const reference = randomUUID();

    const issued = await client.issueInvoice(`nf-${reference}`, sale(reference));
    const invoiceId = issued.authorized ? issued.invoice.id : 'none';
    const cancelled = await client.cancelInvoice(`cancel-${reference}`, invoiceId, 'the buyer gave up');
    const reversed = await client.issueReturnNote(`note-${reference}`, invoiceId, 'the sale is undone');
    const unknown = await client.cancelInvoice(`cancel-${reference}-x`, 'inv_nobody', 'no such');

    expect(issued).toMatchObject({ authorized: true, invoice: { kind: 'invoice', reference, cancelledAt: null } });
    expect(cancelled).toMatchObject({ authorized: true, invoice: { id: invoiceId } });
    expect(reversed).toEqual({ authorized: false, reason: 'invoice-cancelled' });
    expect(unknown).toEqual({ authorized: false, reason: 'unknown-invoice' });
    expect(await client.documentsFiledUnder(reference)).toEqual([cancelled.authorized && cancelled.invoice]);
  });

  it('when the authority answers 502 before the effect, then the client asks again under the same key, and one invoice is filed', async () => {
    const reference = randomUUID();
    await authority.fault({ fault: 'bad-gateway', operation: 'invoice', when: 'before-effect' });

    const answer = await client.issueInvoice(`nf-${reference}`, sale(reference));

    expect(answer.authorized).toBe(true);
    expect(invoiceRequests()).toBe(2);
    expect(await authority.effects(reference)).toEqual({ ...NO_EFFECTS, invoice: 1 });
  });

  it('when the authority answers 503 on every attempt, then the call fails as the authority with that status, after its attempts', async () => {
    const reference = randomUUID();
    await authority.fault({ fault: 'down', seconds: 5, mode: '503' });

    const failure = await failureOf(client.issueInvoice(`nf-${reference}`, sale(reference)));

    expect(isOutsideFailure(failure)).toBe(true);
    expect(failure.message).toMatch(/fiscal-authority: .*answered 503/);
    expect(invoiceRequests()).toBe(3);
    expect(await authority.effects(reference)).toEqual(NO_EFFECTS);
  });

  it('when the authority refuses connections for a while, then the call fails as the authority after its attempts, and succeeds once it is back', async () => {
    const reference = randomUUID();
    await authority.fault({ fault: 'down', seconds: 2, mode: 'refuse' });

    const failure = await failureOf(client.issueInvoice(`nf-${reference}`, sale(reference)));

    expect(isOutsideFailure(failure)).toBe(true);
    expect(failure.message).toMatch(/fiscal-authority: .*connection refused/);
    expect(invoiceRequests()).toBe(3);
    await eventually(
      async () => expect((await client.issueInvoice(`nf-${reference}`, sale(reference))).authorized).toBe(true),
      { timeoutMs: 6_000, intervalMs: 200 },
    );
    expect(await authority.effects(reference)).toEqual({ ...NO_EFFECTS, invoice: 1 });
  });

  it('when the answer comes after the timeout, then the call fails unretried, and the same key then gets the one invoice filed', async () => {
    const reference = randomUUID();
    const key = `nf-${reference}`;
    await authority.fault({ fault: 'late', operation: 'invoice', delayMs: 1_500 });

    const failure = await failureOf(client.issueInvoice(key, sale(reference)));
    const sentBeforeTheRetry = invoiceRequests();
    await authority.untilAnswered();
    const again = await client.issueInvoice(key, sale(reference));

    expect(isOutsideFailure(failure)).toBe(true);
    expect(failure.message).toMatch(/fiscal-authority: .*no answer within 500 ms/);
    expect(sentBeforeTheRetry).toBe(1);
    const [filed] = await authority.documents(reference);
    expect(again).toEqual({ authorized: true, invoice: filed });
    expect(await authority.effects(reference)).toEqual({ ...NO_EFFECTS, invoice: 1 });
  });

  it('when the authority refuses the request as malformed, then the client does not ask again', async () => {
    const reference = randomUUID();

    const failure = await failureOf(client.issueInvoice(`nf-${reference}`, { ...sale(reference), currency: 'real' }));

    expect(isOutsideFailure(failure)).toBe(true);
    expect(failure.message).toContain('answered 400');
    expect(invoiceRequests()).toBe(1);
  });

  it('when the listing answers 502, then the look-up asks again; when it is late past the timeout, it fails as the authority', async () => {
    const reference = randomUUID();
    await client.issueInvoice(`nf-${reference}`, sale(reference));
    await authority.fault({ fault: 'bad-gateway', operation: 'listing', when: 'before-effect' });

    const answered = await client.documentsFiledUnder(reference);
    await authority.fault({ fault: 'late', operation: 'listing', delayMs: 1_000 });
    const unanswered = await failureOf(client.documentsFiledUnder(reference));

    expect(answered).toHaveLength(1);
    expect(isOutsideFailure(unanswered)).toBe(true);
    expect(unanswered.message).toMatch(/fiscal-authority: .*no answer within 500 ms/);
  });
});
