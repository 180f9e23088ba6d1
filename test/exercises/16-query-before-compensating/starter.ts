import type { GatewayWithoutVoidByKey } from './exercise';

/**
 * Billing's void as first written: it looks at our own records only. No payment row for the
 * checkout means the authorization never happened, so there is nothing to release. Run
 * `npm run exercise -- 16`: the gateway's answer to the authorization was late, not absent.
 *
 * TODO: release whatever the gateway still holds for this checkout, and answer "nothing was held"
 * only when you know it. The gateway voids by its own authorization id only.
 */
export async function voidWhatIsFiled(_checkoutId: string, _gateway: GatewayWithoutVoidByKey): Promise<string | null> {
  // No payment of ours: the authorization never happened.
  return null;
}
