import type { GatewayWithoutVoidByKey } from './exercise';

/**
 * A learner's words: "A timeout is not 'none', so I trust no 'none': an empty list may be a
 * gateway that has not caught up. Until the look-up shows me an authorization, the compensation
 * stays unfinished; when it does, I void by id what is still held."
 *
 * What it gets wrong: an answered look-up is an answer. When the authorization never reached the
 * gateway (a 502 before anything was done), the gateway says "none" on every attempt, and will say
 * it for ever: a checkout that held nothing waits for a person, and their retry cannot end it.
 */
export async function voidWhatIsFiled(checkoutId: string, gateway: GatewayWithoutVoidByKey): Promise<string | null> {
  const filed = await gateway.authorizationsFiledUnder(checkoutId);
  if (filed.length === 0) throw new Error(`The gateway lists nothing for ${checkoutId} yet`);
  const captured = filed.find((authorization) => authorization.done.includes('capture'));
  if (captured) throw new Error(`The gateway captured ${captured.authorizationId} for ${checkoutId}`);
  for (const { authorizationId, done } of filed) {
    if (done.includes('void')) continue;
    const response = await gateway.voidById(authorizationId);
    if (!response.approved) throw new Error(`The gateway refused to void ${authorizationId}: ${response.reason}`);
  }
  return filed[0].authorizationId;
}
