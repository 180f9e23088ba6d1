import { randomUUID } from 'node:crypto';
import { Faults } from '../../src/infra/faults/faults';
import { CardGateway } from '../../src/modules/billing/gateway/card-gateway';
import { FiscalAuthority } from '../../src/modules/billing/invoicing/fiscal-authority';
import { MailTransport } from '../../src/modules/notifications/mail/mail-transport';
import { RunningCardGateway } from '../support/card-gateway-service';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { QUIET_ENV, quiet } from '../support/quiet';
import { plantedViolations } from '../support/planted-violations';
import { TestApp } from '../support/test-app';

/**
 * The checker is tested the way Jepsen tests its checkers: on histories known to be bad. Each
 * rule gets a checkout that broke it, planted where the effect leaves the system (at the gateway,
 * through the mail transport) or in the tables, and `GET /admin/invariants` must report exactly
 * that rule for exactly that checkout. A checker that always said "fine" fails every one.
 */
describe('The invariant checker, on planted violations', () => {
  let app: TestApp;
  let client: CheckoutClient;
  let gateway: CardGateway;
  let service: RunningCardGateway;

  beforeAll(async () => {
    // A gateway of its own: one plant below rewrites what the gateway remembers.
    service = await RunningCardGateway.start();
    app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        CARD_GATEWAY_URL: service.url,
        OUTBOX_RELAY_INTERVAL_MS: '50',
        CHECKOUT_STALLED_AFTER_MS: '2000',
        SAGA_STEP_TIMEOUT_MS: '60000',
        SAGA_SWEEP_INTERVAL_MS: '50',
      },
    });
    client = new CheckoutClient(app);
    gateway = app.get(CardGateway);
  });
  afterEach(() => app.get(Faults).clear());
  afterAll(async () => {
    await app.stop();
    await service.stop();
  });

  const { report, checkout, planted } = plantedViolations(() => ({ app, client }));

  /** An authorization made at the gateway under the checkout, outside the checkout's own steps. */
  const authorizeAtGateway = async (checkoutId: string, paymentMethod: 'pm_card_ok' = 'pm_card_ok') => {
    const answer = await gateway.authorize(`planted:${randomUUID()}`, {
      paymentMethod,
      amountCents: 990,
      currency: 'USD',
      reference: checkoutId,
    });
    if (!answer.approved) throw new Error(`The planted authorization was declined: ${answer.reason}`);
    return answer.authorizationId;
  };
  const chargeAtGateway = async (checkoutId: string) => {
    const captured = await gateway.capture(`planted:${randomUUID()}`, await authorizeAtGateway(checkoutId));
    if (!captured.approved) throw new Error(`The planted capture was declined: ${captured.reason}`);
  };
  const sendWelcome = (checkoutId: string) =>
    app.get(MailTransport).send({
      to: 'buyer@example.com',
      subject: 'Welcome, again',
      text: 'planted',
      messageId: `<welcome.${checkoutId}@checkout.local>`,
      checkoutId,
      template: 'welcome',
    });
  const sendCorrection = (checkoutId: string) =>
    app.get(MailTransport).send({
      to: 'buyer@example.com',
      subject: 'Your payment was refunded',
      text: 'planted',
      messageId: `<welcome-correction.${checkoutId}@checkout.local>`,
      checkoutId,
      template: 'welcome-correction',
    });
  /** A completed checkout that an operator refunded, with the system quiet afterwards (its correction sent). */
  const refunded = async (): Promise<string> => {
    const id = await checkout('completed');
    await client.admin(app.http().post(`/admin/payments/${id}/refund`)).expect(200);
    await quiet(app);
    return id;
  };

  it('when checkouts ran as they should, then it reports nothing about them', async () => {
    const ids = [await checkout('completed'), await checkout('not-licensed'), await checkout('capture-declined')];

    const { violations, checked } = await report();

    expect(violations.filter((v) => ids.includes(v.checkoutId))).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  it('when a failed checkout still holds an authorization at the gateway, then held-money', async () => {
    const id = await checkout('not-licensed');

    expect(await planted(() => authorizeAtGateway(id))).toEqual([{ checkoutId: id, rule: 'held-money' }]);
  });

  it('when a completed checkout holds a second authorization at the gateway, then held-money', async () => {
    const id = await checkout('completed');

    expect(await planted(() => authorizeAtGateway(id))).toEqual([{ checkoutId: id, rule: 'held-money' }]);
  });

  it('when a completed checkout was captured twice at the gateway, then double-charge', async () => {
    const id = await checkout('completed');

    expect(await planted(() => chargeAtGateway(id))).toEqual([{ checkoutId: id, rule: 'double-charge' }]);
  });

  it('when a failed checkout was captured at the gateway, then charged-for-nothing', async () => {
    const id = await checkout('not-licensed');

    expect(await planted(() => chargeAtGateway(id))).toEqual([{ checkoutId: id, rule: 'charged-for-nothing' }]);
  });

  it('when the mail transport handed over a second welcome email, then double-email', async () => {
    const id = await checkout('completed');

    expect(await planted(() => sendWelcome(id))).toEqual([{ checkoutId: id, rule: 'double-email' }]);
  });

  it('when a completed checkout has no hand-over of its welcome email, then missing-email', async () => {
    const id = await checkout('completed');

    const gained = await planted(() =>
      app.database.query(`DELETE FROM notifications.mail_handovers WHERE checkout_id = $1`, [id]),
    );

    expect(gained).toEqual([{ checkoutId: id, rule: 'missing-email' }]);
  });

  it('when a failed checkout got a welcome email, then email-for-nothing', async () => {
    const id = await checkout('not-licensed');

    expect(await planted(() => sendWelcome(id))).toEqual([{ checkoutId: id, rule: 'email-for-nothing' }]);
  });

  it('when a completed checkout has no capture the gateway approved, then missing-capture', async () => {
    const id = await checkout('completed');

    const gained = await planted(() =>
      service.query(
        `UPDATE card_gateway.operations SET approved = false WHERE reference = $1 AND operation = 'capture'`,
        [id],
      ),
    );

    // Its authorization, never captured now, is money held as well.
    expect(gained).toEqual([
      { checkoutId: id, rule: 'held-money' },
      { checkoutId: id, rule: 'missing-capture' },
    ]);
  });

  it('when a completed checkout has no active access, then missing-access', async () => {
    const id = await checkout('completed');

    const gained = await planted(() =>
      app.database.query(`UPDATE content.entitlements SET status = 'revoked' WHERE checkout_id = $1`, [id]),
    );

    expect(gained).toEqual([{ checkoutId: id, rule: 'missing-access' }]);
  });

  it('when a completed checkout holds only a provisional grant (never activated), then missing-access', async () => {
    const id = await checkout('completed');

    const gained = await planted(() =>
      app.database.query(`UPDATE content.entitlements SET status = 'provisional' WHERE checkout_id = $1`, [id]),
    );

    expect(gained).toEqual([{ checkoutId: id, rule: 'missing-access' }]);
  });

  it('when a failed checkout still holds a provisional grant (never revoked), then access-for-nothing', async () => {
    const id = await checkout('capture-declined');

    const gained = await planted(() =>
      app.database.query(`UPDATE content.entitlements SET status = 'provisional' WHERE checkout_id = $1`, [id]),
    );

    expect(gained).toEqual([{ checkoutId: id, rule: 'access-for-nothing' }]);
  });

  it('when a failed checkout still grants access, then access-for-nothing', async () => {
    const id = await checkout('capture-declined');

    const gained = await planted(() =>
      app.database.query(`UPDATE content.entitlements SET status = 'active' WHERE checkout_id = $1`, [id]),
    );

    expect(gained).toEqual([{ checkoutId: id, rule: 'access-for-nothing' }]);
  });

  it('when a completed checkout was refunded and its welcome corrected, then it reports nothing about it', async () => {
    const id = await refunded();

    expect((await report()).violations.filter((v) => v.checkoutId === id)).toEqual([]);
  });

  it('when a refunded checkout has no hand-over of the email correcting its welcome, then missing-correction', async () => {
    const id = await refunded();

    const gained = await planted(() =>
      app.database.query(
        `DELETE FROM notifications.mail_handovers WHERE checkout_id = $1 AND template = 'welcome-correction'`,
        [id],
      ),
    );

    expect(gained).toEqual([{ checkoutId: id, rule: 'missing-correction' }]);
  });

  it('when the mail transport handed over a second correction of a refunded checkout, then double-correction', async () => {
    const id = await refunded();

    expect(await planted(() => sendCorrection(id))).toEqual([{ checkoutId: id, rule: 'double-correction' }]);
  });

  it('when a checkout that was never refunded got a correction of its welcome, then correction-no-refund', async () => {
    const id = await checkout('completed');

    expect(await planted(() => sendCorrection(id))).toEqual([{ checkoutId: id, rule: 'correction-no-refund' }]);
  });

  /** An invoice authorised at the fiscal authority under the checkout, outside the checkout's own steps. */
  const invoiceAtAuthority = async (checkoutId: string) => {
    const answer = await app.get(FiscalAuthority).issueInvoice(`planted:${randomUUID()}`, {
      reference: checkoutId,
      buyer: 'planted',
      description: 'planted',
      amountCents: 990,
      currency: 'USD',
    });
    if (!answer.authorized) throw new Error(`The planted invoice was refused: ${answer.reason}`);
  };

  it('when a checkout is marked completed with its welcome but the authority never invoiced it, then missing-invoice', async () => {
    // Its invoice's delivery swallowed every time: the sale goes no further than its activation.
    app.get(Faults).set([{ point: 'step:billing.issue-invoice', action: 'timeout-before' }]);
    const id = await client.start({ userId: (await client.createUser()).id, mode: 'choreography' });
    await eventually(async () =>
      expect((await client.timeline(id)).map((entry) => entry.type)).toContain('content.access-activated.v1'),
    );
    await quiet(app);

    const gained = await planted(async () => {
      await app.database.query(`UPDATE checkout.checkouts SET status = 'COMPLETED' WHERE id = $1`, [id]);
      await sendWelcome(id);
    });

    expect(gained).toEqual([{ checkoutId: id, rule: 'missing-invoice' }]);
  });

  it('when the authority invoiced a failed checkout, then invoice-for-nothing', async () => {
    const id = await checkout('capture-declined');

    expect(await planted(() => invoiceAtAuthority(id))).toEqual([{ checkoutId: id, rule: 'invoice-for-nothing' }]);
  });

  it('when the authority invoiced a sale twice, then double-invoice, counted there (billing recorded one)', async () => {
    const id = await checkout('completed');

    expect(await planted(() => invoiceAtAuthority(id))).toEqual([{ checkoutId: id, rule: 'double-invoice' }]);
  });

  it("when a refunded checkout's invoice still stands at the authority, then invoice-not-reversed", async () => {
    const id = await checkout('completed');

    const gained = await planted(async () => {
      // The reversal fails every time: the money goes back, the invoice stays.
      app.get(Faults).set([{ point: 'consumer:billing.reverse-invoice', action: 'fail' }]);
      await client.admin(app.http().post(`/admin/payments/${id}/refund`)).expect(200);
      await eventually(async () => expect(await client.leftTheSystem(id)).toMatchObject({ refund: 1 }));
    });

    expect(gained.filter((v) => v.rule !== 'missing-correction')).toEqual([
      { checkoutId: id, rule: 'invoice-not-reversed' },
    ]);
  });

  describe('on checkouts that have not ended', () => {
    /** An orchestrated checkout waiting for its capture's answer (a minute away): PENDING, authorized, with access. */
    const pending = async (): Promise<string> => {
      app.get(Faults).set([{ point: 'step:billing.capture-payment', action: 'timeout-before' }]);
      const id = await client.start({ userId: (await client.createUser()).id, mode: 'orchestration' });
      await client.until(id, ['PENDING']);
      await quiet(app);
      expect(await client.get(id)).toMatchObject({ status: 'PENDING', step: 'billing.capture-payment' });
      return id;
    };

    it('when a pending checkout holds a provisional grant while its capture is awaited, then it reports nothing', async () => {
      const id = await pending();

      expect(await client.effects(id)).toMatchObject({ payment: 'authorized', entitlement: 'provisional' });
      expect((await report()).violations.filter((v) => v.checkoutId === id)).toEqual([]);
    });

    it('when a pending checkout has active access before its capture, then access-without-capture', async () => {
      const id = await pending();

      const gained = await planted(() =>
        app.database.query(`UPDATE content.entitlements SET status = 'active' WHERE checkout_id = $1`, [id]),
      );

      expect(gained).toEqual([{ checkoutId: id, rule: 'access-without-capture' }]);
    });

    it('when a pending checkout was captured twice at the gateway, then double-charge', async () => {
      const id = await pending();

      const gained = await planted(async () => {
        await chargeAtGateway(id);
        await chargeAtGateway(id);
      });

      expect(gained).toEqual([{ checkoutId: id, rule: 'double-charge' }]);
    });

    it('when a pending checkout got its welcome email before its capture, then email-without-capture', async () => {
      const id = await pending();

      expect(await planted(() => sendWelcome(id))).toEqual([{ checkoutId: id, rule: 'email-without-capture' }]);
    });

    it('when a checkout waits for a person while money is held, then the report says what is at stake', async () => {
      app.get(Faults).set([{ point: 'step:content.grant-access', action: 'timeout-before' }]);
      const id = await client.start({ userId: (await client.createUser()).id, mode: 'choreography' });

      await client.until(id, ['INTERVENTION']);
      await quiet(app);
      const { violations, atStake } = await report();

      expect(violations.filter((v) => v.checkoutId === id)).toEqual([]);
      expect(atStake.filter((s) => s.checkoutId === id)).toEqual([
        {
          checkoutId: id,
          status: 'INTERVENTION',
          heldAuthorizations: 1,
          capturedPayments: 0,
          activeAccess: 0,
          provisionalAccess: 0,
          welcomeEmails: 0,
        },
      ]);
    });
  });
});
