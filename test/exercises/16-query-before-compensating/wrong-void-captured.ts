import type { GatewayWithoutVoidByKey } from './exercise';

/**
 * A learner's words: "I ask the gateway, and void every authorization it lists under the
 * checkout, whatever happened to it since. If it refuses a void, there was nothing left to release
 * (voided already, or gone some other way), and that is what a compensation wants."
 *
 * What it gets wrong: it reads the list without its `done`, and a refusal as a release. Money the
 * gateway captured is not released by a void: the gateway refuses it (`already-captured`), and the
 * checkout is declared undone, FAILED, with the buyer charged for a sale that did not happen and
 * nobody asked to refund it.
 */
export async function voidWhatIsFiled(checkoutId: string, gateway: GatewayWithoutVoidByKey): Promise<string | null> {
  const filed = await gateway.authorizationsFiledUnder(checkoutId);
  for (const { authorizationId } of filed) await gateway.voidById(authorizationId);
  return filed[0]?.authorizationId ?? null;
}
