import type { GatewayWithoutVoidByKey } from './exercise';

/**
 * A learner's words: "I ask the gateway before compensating, and void by id what it still holds.
 * If the look-up fails, the gateway is having a bad moment; it would have listed the authorization
 * if it had one, so I take that as nothing to release and let the checkout fail."
 *
 * What it gets wrong: a look-up that timed out said nothing, not "none". The tombstone then says
 * "never held" for a hold the gateway still has: the checkout ends FAILED, the money stays held,
 * and nobody is asked to release it.
 */
export async function voidWhatIsFiled(checkoutId: string, gateway: GatewayWithoutVoidByKey): Promise<string | null> {
  const filed = await gateway.authorizationsFiledUnder(checkoutId).catch(() => []);
  if (filed.some(({ done }) => done.includes('capture'))) throw new Error(`${checkoutId} was captured: refund it`);
  const held = filed.filter(({ done }) => !done.includes('void'));
  const responses = await Promise.all(held.map(({ authorizationId }) => gateway.voidById(authorizationId)));
  const refused = responses.find((response) => !response.approved);
  if (refused) throw new Error(`The gateway refused to void a hold of ${checkoutId}: ${JSON.stringify(refused)}`);
  return filed[0]?.authorizationId ?? null;
}
