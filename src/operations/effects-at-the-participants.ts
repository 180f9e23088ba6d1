import { BillingApi, type FiledInvoices, type FiledMoney } from '../modules/billing';
import { atMostAtOnce } from './at-most-at-once';

/** How many checkouts are looked up at the participants at once. */
const LOOK_UPS_AT_ONCE = 8;

/**
 * A participant did not answer what it filed under a checkout: its rules could not be checked,
 * and the report is withheld rather than say "fine" about effects it never saw.
 */
export abstract class EffectsNotCounted extends Error {
  constructor(
    readonly checkoutId: string,
    participant: string,
    what: string,
    cause: unknown,
  ) {
    super(
      `the ${participant} did not list what it filed under checkout ${checkoutId}, so its ${what} not counted: ` +
        (cause instanceof Error ? cause.message : String(cause)),
      { cause },
    );
  }
}

/** The card gateway service did not answer: the money rules could not be checked. */
export class MoneyNotCounted extends EffectsNotCounted {
  constructor(checkoutId: string, cause: unknown) {
    super(checkoutId, 'card gateway service', 'money was', cause);
    this.name = 'MoneyNotCounted';
  }
}

/** The fiscal authority did not answer: the invoice rules could not be checked. */
export class InvoicesNotCounted extends EffectsNotCounted {
  constructor(checkoutId: string, cause: unknown) {
    super(checkoutId, 'fiscal authority', 'invoices were', cause);
    this.name = 'InvoicesNotCounted';
  }
}

/**
 * Each checkout's facts with what the participants list under it, LOOK_UPS_AT_ONCE checkouts at a
 * time: its money at the card gateway service and its invoices at the fiscal authority. One look-up that fails (after the clients' own retries) fails the whole check, and no
 * further look-up starts: a report that left a checkout uncounted, even flagged, would read as
 * "fine" to a script or a glance that reads its violations (the chaos run does); a demanding
 * operator wants no verdict rather than a wrong one, and the error names the checkout.
 */
export function effectsAtTheParticipants<F extends { id: string }>(
  facts: F[],
  billing: BillingApi,
): Promise<Array<F & FiledInvoices & FiledMoney>> {
  const counted = <T>(look: Promise<T>, NotCounted: new (id: string, cause: unknown) => Error, id: string) =>
    look.catch((error: unknown) => {
      throw new NotCounted(id, error);
    });
  return atMostAtOnce(facts, LOOK_UPS_AT_ONCE, async (f) => ({
    ...f,
    ...(await counted(billing.moneyFiledUnder(f.id), MoneyNotCounted, f.id)),
    ...(await counted(billing.invoicesFiledUnder(f.id), InvoicesNotCounted, f.id)),
  }));
}
