import type { OperationRecord } from '../../participants/card-gateway/domain/operations';
import { type FiledMoney, moneyIn } from '../../src/modules/billing/domain/filed-money';
import type { InvariantRule } from '../../src/operations/invariants';

/**
 * The invariant checker's rules whose facts are the gateway's effects, which it reads from
 * `billing.gateway_requests`, the fake's records (src/operations/invariants.ts). With
 * CARD_GATEWAY_URL set that table stays empty (ADR 0103): a run against the service drops these
 * from the app's report and counts the money at the service instead (`moneyAtTheService`).
 */
export const RULES_ON_THE_FAKES_RECORDS: ReadonlySet<string> = new Set<InvariantRule>([
  'held-money',
  'double-charge',
  'charged-for-nothing',
  'missing-capture',
  // Only for a checkout still in flight, which the run lists as stuck anyway.
  'email-without-capture',
  'access-without-capture',
  // A refund against the correction email: the chaos scenarios refund nothing, and an email that
  // should not exist shows in the count at the SMTP server.
  'missing-correction',
  'correction-no-refund',
]);

/** The money of one checkout at the gateway, counted as billing counts it (`moneyIn`). */
export type Money = Omit<FiledMoney, 'refunds'>;

const ENDED = ['COMPLETED', 'FAILED', 'REJECTED'];
const WITHOUT_SALE = ['FAILED', 'REJECTED'];
const MONEY_RULES: Array<{ rule: InvariantRule; broken: (status: string, m: Money) => boolean; description: string }> =
  [
    {
      rule: 'held-money',
      broken: (status, m) => ENDED.includes(status) && m.held > 0,
      description: 'the service holds an authorization that nothing captured, voided or refunded',
    },
    {
      rule: 'double-charge',
      broken: (_, m) => m.captures > 1,
      description: 'the service approved more than one capture for this checkout',
    },
    {
      rule: 'charged-for-nothing',
      broken: (status, m) => WITHOUT_SALE.includes(status) && m.charged > 0,
      description: 'the service took money (and kept it) for a checkout that did not sell',
    },
    {
      rule: 'missing-capture',
      broken: (status, m) => status === 'COMPLETED' && m.captures === 0,
      description: 'a completed checkout whose payment the service never captured',
    },
  ];

/**
 * The money rules, each checkout's money counted at the card gateway service from its listing
 * (`GET /v1/references/:reference/operations`, the checkout's id as the reference): where the
 * effect leaves the system, so that a 2 can show up. A listing that does not answer 200 fails the count.
 */
export async function moneyAtTheService(
  gatewayUrl: string,
  checkouts: ReadonlyArray<{ id: string; status: string }>,
): Promise<Array<{ checkoutId: string; status: string; rule: InvariantRule; description: string } & Money>> {
  const violations = [];
  for (let i = 0; i < checkouts.length; i += 8) {
    const batch = checkouts.slice(i, i + 8);
    const listings = await Promise.all(batch.map((c) => listing(gatewayUrl, c.id)));
    for (const [j, { id, status }] of batch.entries()) {
      const { refunds: _refunds, ...money } = moneyIn(listings[j]);
      violations.push(
        ...MONEY_RULES.filter(({ broken }) => broken(status, money)).map(({ rule, description }) => ({
          checkoutId: id,
          status,
          rule,
          description,
          ...money,
        })),
      );
    }
  }
  return violations;
}

async function listing(gatewayUrl: string, reference: string): Promise<OperationRecord[]> {
  const response = await fetch(`${gatewayUrl}/v1/references/${encodeURIComponent(reference)}/operations`);
  if (response.status !== 200) throw new Error(`the card gateway did not list ${reference}: ${response.status}`);
  return ((await response.json()) as { operations: OperationRecord[] }).operations;
}
