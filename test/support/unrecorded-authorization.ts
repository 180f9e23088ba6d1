import { CardGateway } from '../../src/modules/billing/gateway/card-gateway';
import type { TestApp } from './test-app';

/**
 * The app's gateway approves the authorization of checkout `id` under the step's key, as an
 * attempt whose payment row never committed would have left it: held at the gateway, unknown to
 * billing. Answers the authorization's id.
 */
export async function approveUnrecorded(app: TestApp, id: string): Promise<string> {
  const approved = await app.get(CardGateway).authorize(`${id}:billing.authorize-payment`, {
    paymentMethod: 'pm_card_ok',
    amountCents: 990,
    currency: 'USD',
    reference: id,
  });
  if (!approved.approved) throw new Error(`the gateway declined the authorization of ${id}: ${approved.reason}`);
  return approved.authorizationId;
}
