import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export interface InvariantViolation {
  checkoutId: string;
  status: string;
  rule: string;
}

export interface InvariantReport {
  checked: number;
  violations: InvariantViolation[];
}

interface CheckoutFacts {
  id: string;
  status: string;
  captured: number;
  held: number;
  active: number;
  emails: number;
}

/** The invariants of PRODUCT.md, as rules over what each module recorded about one checkout. */
const RULES: Array<{ rule: string; applies: (f: CheckoutFacts) => boolean; holds: (f: CheckoutFacts) => boolean }> = [
  {
    rule: 'a completed checkout has exactly one captured payment',
    applies: (f) => f.status === 'COMPLETED',
    holds: (f) => f.captured === 1,
  },
  {
    rule: 'a completed checkout has exactly one active entitlement',
    applies: (f) => f.status === 'COMPLETED',
    holds: (f) => f.active === 1,
  },
  {
    rule: 'a completed checkout sent exactly one welcome email',
    applies: (f) => f.status === 'COMPLETED',
    holds: (f) => f.emails === 1,
  },
  ...(['FAILED', 'REJECTED'] as const).flatMap((status) => [
    {
      rule: `a ${status.toLowerCase()} checkout captured nothing`,
      applies: (f: CheckoutFacts) => f.status === status,
      holds: (f: CheckoutFacts) => f.captured === 0,
    },
    {
      rule: `a ${status.toLowerCase()} checkout holds no authorization (every one was voided)`,
      applies: (f: CheckoutFacts) => f.status === status,
      holds: (f: CheckoutFacts) => f.held === 0,
    },
    {
      rule: `a ${status.toLowerCase()} checkout grants no access`,
      applies: (f: CheckoutFacts) => f.status === status,
      holds: (f: CheckoutFacts) => f.active === 0,
    },
    {
      rule: `a ${status.toLowerCase()} checkout sent no welcome email`,
      applies: (f: CheckoutFacts) => f.status === status,
      holds: (f: CheckoutFacts) => f.emails === 0,
    },
  ]),
  { rule: 'no welcome email without a captured payment', applies: (f) => f.emails > 0, holds: (f) => f.captured > 0 },
  { rule: 'no captured payment without access', applies: (f) => f.captured > 0, holds: (f) => f.active > 0 },
  {
    rule: 'nothing happens twice',
    applies: () => true,
    holds: (f) => f.captured <= 1 && f.active <= 1 && f.emails <= 1,
  },
];

/**
 * Checks every checkout against the invariants, by SQL across the modules' schemas, in one
 * read-only snapshot. This is an operator's (and a test's) view from outside the modules, which
 * is why it may read all their tables; no module does.
 */
@Injectable()
export class Invariants {
  constructor(private readonly dataSource: DataSource) {}

  async check(checkoutIds?: string[]): Promise<InvariantReport> {
    const facts = await this.dataSource.transaction('REPEATABLE READ', async (tx) => {
      await tx.query('SET TRANSACTION READ ONLY');
      return tx.query<CheckoutFacts[]>(
        `SELECT c.id, c.status,
                (SELECT count(*) FROM billing.payments p WHERE p.checkout_id = c.id AND p.status = 'captured')::int AS captured,
                (SELECT count(*) FROM billing.payments p WHERE p.checkout_id = c.id AND p.status = 'authorized')::int AS held,
                (SELECT count(*) FROM content.entitlements e WHERE e.checkout_id = c.id AND e.status = 'active')::int AS active,
                (SELECT count(*) FROM notifications.emails m WHERE m.checkout_id = c.id AND m.template = 'welcome')::int AS emails
           FROM checkout.checkouts c
          WHERE $1::uuid[] IS NULL OR c.id = ANY($1::uuid[])`,
        [checkoutIds ?? null],
      );
    });
    const violations = facts.flatMap((f) =>
      RULES.filter(({ applies, holds }) => applies(f) && !holds(f)).map(({ rule }) => ({
        checkoutId: f.id,
        status: f.status,
        rule,
      })),
    );
    return { checked: facts.length, violations };
  }
}
