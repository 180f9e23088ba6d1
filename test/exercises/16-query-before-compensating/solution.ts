import type { GatewayWithoutVoidByKey } from './exercise';

/**
 * Our records say nothing happened, which is only what our records say: the authorization timed
 * out, and a timeout says the answer did not arrive, not that the hold was not made. Without void
 * by key, ask the gateway what it filed under the checkout before compensating, and void by id each
 * authorization still held.
 *
 * The look-up is one more call that can go unanswered: its failure is let through, so that the
 * compensation stays unfinished (retried, then a person's), and only an answered look-up that finds
 * nothing lets the tombstone say "never held". Captured money is not a void's to undo, and a
 * refused void is not a release: both are let through as failures too.
 */
export async function voidWhatIsFiled(checkoutId: string, gateway: GatewayWithoutVoidByKey): Promise<string | null> {
  const filed = await gateway.authorizationsFiledUnder(checkoutId);
  const captured = filed.find((authorization) => authorization.done.includes('capture'));
  if (captured) {
    throw new Error(
      `The gateway captured ${captured.authorizationId} for ${checkoutId}: a refund, or a person's answer`,
    );
  }
  for (const { authorizationId, done } of filed) {
    if (done.includes('void')) continue;
    const response = await gateway.voidById(authorizationId);
    if (!response.approved) {
      throw new Error(`The gateway refused to void ${authorizationId} of ${checkoutId}: ${response.reason}`);
    }
  }
  return filed[0]?.authorizationId ?? null;
}
