import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BillingApi } from '../modules/billing';
import { effectsAtTheParticipants } from './effects-at-the-participants';

export { EffectsNotCounted, InvoicesNotCounted, MoneyNotCounted } from './effects-at-the-participants';

/** The stable, machine-readable names of the rules; tests and scripts match on these. */
export const INVARIANT_RULES = [
  'held-money',
  'double-charge',
  'charged-for-nothing',
  'double-email',
  'missing-email',
  'email-without-capture',
  'email-for-nothing',
  'missing-capture',
  'missing-access',
  'access-for-nothing',
  'access-without-capture',
  'missing-correction',
  'double-correction',
  'correction-no-refund',
  'missing-invoice',
  'invoice-for-nothing',
  'invoice-not-reversed',
  'double-invoice',
] as const;
export type InvariantRule = (typeof INVARIANT_RULES)[number];

export interface InvariantViolation {
  checkoutId: string;
  status: string;
  rule: InvariantRule;
  description: string;
}

/** What a checkout that waits for a person has left in the world, so the person knows what is at stake. */
export interface AtStake {
  checkoutId: string;
  status: 'INTERVENTION';
  /** Approved authorizations neither captured, voided nor refunded: money held on the card. */
  heldAuthorizations: number;
  /** Approved captures not refunded: money taken. */
  capturedPayments: number;
  activeAccess: number;
  /** Granted but not yet active (ADR 0051): a person either lets the capture activate it or revokes it. */
  provisionalAccess: number;
  welcomeEmails: number;
}

export interface InvariantReport {
  checked: number;
  violations: InvariantViolation[];
  atStake: AtStake[];
}

/** What left the system for one checkout, as the gateway and the mail transport saw it, and our access rows. */
interface CheckoutFacts {
  id: string;
  status: string;
  /** Approved authorizations that nothing (capture, void, refund) followed. */
  held: number;
  /** Approved captures. */
  captures: number;
  /** Approved captures whose authorization was not refunded. */
  charged: number;
  /** Approved refunds. */
  refunds: number;
  /** Welcome emails handed to the mail transport. */
  emails: number;
  /** Emails correcting the welcome after a refund, handed to the mail transport. */
  corrections: number;
  /** Active entitlements: access the buyer can use. */
  active: number;
  /** Provisional entitlements: granted while the money was held, not yet usable (ADR 0051). */
  provisional: number;
  /** Invoices the fiscal authority authorised under the checkout, cancelled or not. */
  invoices: number;
  /** Of those, the ones that still stand: neither cancelled nor reversed by a return note. */
  standing: number;
}

/** The facts read from our own tables, before the participants are asked. */
type OurFacts = Omit<CheckoutFacts, 'held' | 'captures' | 'charged' | 'refunds' | 'invoices' | 'standing'>;

const ENDED_WITHOUT_SALE = new Set(['FAILED', 'REJECTED']);
const IN_FLIGHT = new Set(['PENDING', 'INTERVENTION']);

/** The invariants of PRODUCT.md; each names its rule, when it applies, and what breaks it. */
const RULES: Array<{ rule: InvariantRule; broken: (f: CheckoutFacts) => boolean; description: string }> = [
  {
    rule: 'held-money',
    // A sale captures its one authorization: any other left approved is money held on the card too.
    broken: (f) => (ENDED_WITHOUT_SALE.has(f.status) || f.status === 'COMPLETED') && f.held > 0,
    description: 'an authorization the gateway approved is still held (neither captured, voided nor refunded)',
  },
  {
    rule: 'double-charge',
    broken: (f) => f.captures > 1,
    description: 'the gateway approved more than one capture for this checkout',
  },
  {
    rule: 'charged-for-nothing',
    broken: (f) => ENDED_WITHOUT_SALE.has(f.status) && f.charged > 0,
    description: 'money was captured (and not refunded) for a checkout that did not sell',
  },
  {
    rule: 'double-email',
    broken: (f) => f.emails > 1,
    description: 'the mail transport handed over more than one welcome email for this checkout',
  },
  {
    rule: 'missing-email',
    broken: (f) => f.status === 'COMPLETED' && f.emails === 0,
    description: 'a completed checkout whose welcome email the mail transport never handed over',
  },
  {
    rule: 'email-without-capture',
    broken: (f) => IN_FLIGHT.has(f.status) && f.emails > 0 && f.captures === 0,
    description: 'a welcome email was handed over before the money was captured (the pivot comes first)',
  },
  {
    rule: 'email-for-nothing',
    broken: (f) => ENDED_WITHOUT_SALE.has(f.status) && f.emails > 0,
    description: 'a welcome email was handed over for a checkout that did not sell',
  },
  {
    rule: 'missing-capture',
    broken: (f) => f.status === 'COMPLETED' && f.captures === 0,
    description: 'a completed checkout whose payment the gateway never captured',
  },
  {
    rule: 'missing-access',
    // A provisional grant is not access: a sale whose grant was never activated lacks it.
    broken: (f) => f.status === 'COMPLETED' && f.active !== 1,
    description: 'a completed checkout without exactly one active entitlement (a provisional one does not count)',
  },
  {
    rule: 'access-for-nothing',
    // A provisional grant left behind is a lock never released: the buyer is told the purchase is being confirmed.
    broken: (f) => ENDED_WITHOUT_SALE.has(f.status) && f.active + f.provisional > 0,
    description: 'a checkout that did not sell still grants access, active or provisional',
  },
  {
    rule: 'access-without-capture',
    broken: (f) => IN_FLIGHT.has(f.status) && f.active > 0 && f.captures === 0,
    description:
      'access became active before the money was captured: a buyer could use a purchase that may still be undone (a dirty read)',
  },
  // An email cannot be taken back: a refund after the welcome is compensated by a second email.
  // Nothing in the checkout's status waits for it, so for the moment between a refund and its
  // correction the first rule shows; like every count here, it is final once the system is quiet.
  {
    rule: 'missing-correction',
    broken: (f) => f.refunds > 0 && f.emails > 0 && f.corrections === 0,
    description: 'the money went back to a buyer who got the welcome email, and the email correcting it never went out',
  },
  {
    rule: 'double-correction',
    broken: (f) => f.corrections > 1,
    description: 'the mail transport handed over more than one email correcting the welcome for this checkout',
  },
  {
    rule: 'correction-no-refund',
    broken: (f) => f.corrections > 0 && f.refunds === 0,
    description: 'an email correcting the welcome was handed over, but no refund was ever approved',
  },
  // The invoice (ADR 0107): one for each sale, none for anything else, and reversed after a refund
  // (cancelled inside the authority's window, a return note after it, ADR 0106).
  {
    rule: 'missing-invoice',
    broken: (f) => f.status === 'COMPLETED' && f.invoices === 0,
    description: 'a completed checkout whose sale the fiscal authority never invoiced',
  },
  {
    rule: 'invoice-for-nothing',
    broken: (f) => ENDED_WITHOUT_SALE.has(f.status) && f.invoices > 0,
    description: 'an invoice was issued for a checkout that did not sell',
  },
  {
    rule: 'invoice-not-reversed',
    broken: (f) => f.refunds > 0 && f.standing > 0,
    description: 'the money went back to the buyer and the invoice still stands: neither cancelled nor reversed',
  },
  {
    rule: 'double-invoice',
    broken: (f) => f.invoices > 1,
    description: 'the fiscal authority authorised more than one invoice for this checkout',
  },
];

/**
 * Checks every checkout (PENDING and INTERVENTION ones included) against the invariants, in one
 * read-only snapshot, by what left the system: every operation the card gateway approved, filed
 * under the checkout as its merchant reference, and every email the mail transport handed over
 * (welcomes and their corrections, counted apart), both recorded outside our business
 * transactions. A count over our own uniquely-keyed rows could show 0 but never 2; these can.
 * This is an operator's (and a test's) view from outside the modules, which is why it may read
 * all their tables; no module does.
 *
 * Our own rows are read in the snapshot; what the participants did is asked of them through
 * billing's door, checkout by checkout, after it (effectsAtTheParticipants): the money the card
 * gateway service filed under the checkout, and the invoices the fiscal authority did. Like every
 * count here, final once the system is quiet. What billing recorded of them is written with its
 * business, and could show 0 but never 2.
 */
@Injectable()
export class Invariants {
  constructor(
    private readonly dataSource: DataSource,
    private readonly billing: BillingApi,
  ) {}

  /** Throws an EffectsNotCounted when a participant did not answer for one of the checkouts. */
  async check(checkoutIds?: string[]): Promise<InvariantReport> {
    const snapshot = await this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      await tx.query('SET TRANSACTION READ ONLY');
      return tx.query<OurFacts[]>(
        `SELECT c.id, c.status,
                (SELECT count(*) FROM notifications.mail_handovers m
                  WHERE m.checkout_id = c.id AND m.template = 'welcome')::int AS emails,
                (SELECT count(*) FROM notifications.mail_handovers m
                  WHERE m.checkout_id = c.id AND m.template = 'welcome-correction')::int AS corrections,
                (SELECT count(*) FROM content.entitlements e WHERE e.checkout_id = c.id AND e.status = 'active')::int AS active,
                (SELECT count(*) FROM content.entitlements e
                  WHERE e.checkout_id = c.id AND e.status = 'provisional')::int AS provisional
           FROM checkout.checkouts c
          WHERE $1::uuid[] IS NULL OR c.id = ANY($1::uuid[])`,
        [checkoutIds ?? null],
      );
    });
    const facts: CheckoutFacts[] = await effectsAtTheParticipants(snapshot, this.billing);
    const violations = facts.flatMap((f) =>
      RULES.filter(({ broken }) => broken(f)).map(({ rule, description }) => ({
        checkoutId: f.id,
        status: f.status,
        rule,
        description,
      })),
    );
    const atStake = facts
      .filter((f) => f.status === 'INTERVENTION')
      .map((f) => ({
        checkoutId: f.id,
        status: 'INTERVENTION' as const,
        heldAuthorizations: f.held,
        capturedPayments: f.charged,
        activeAccess: f.active,
        provisionalAccess: f.provisional,
        welcomeEmails: f.emails,
      }));
    return { checked: facts.length, violations, atStake };
  }
}
