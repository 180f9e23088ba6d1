import type { InvariantReport, InvariantViolation } from '../../src/operations/invariants';
import type { CheckoutClient } from './checkout-client';
import { quiet } from './quiet';
import type { TestApp } from './test-app';

/** How a checkout the checker is tried on ends: a sale, or one undone before or at the capture. */
export type CheckoutKind = 'completed' | 'not-licensed' | 'capture-declined';

/**
 * The checker's specs' tools, over the app and client their `beforeAll` starts (read when used):
 * the report, a checkout run to its end, and what a planted violation added to the report.
 */
export function plantedViolations(rig: () => { app: TestApp; client: CheckoutClient }) {
  const report = async (): Promise<InvariantReport> => {
    const { app, client } = rig();
    return (await client.admin(app.http().get('/admin/invariants')).expect(200)).body;
  };

  /** A checkout that ran to its end, with the system quiet afterwards. */
  const checkout = async (kind: CheckoutKind): Promise<string> => {
    const { app, client } = rig();
    const user = await client.createUser({ country: kind === 'not-licensed' ? 'JP' : 'PT' });
    const id = await client.start({
      userId: user.id,
      planId: kind === 'not-licensed' ? 'premium' : 'basic',
      paymentMethod: kind === 'capture-declined' ? 'pm_card_capture_declined' : 'pm_card_ok',
    });
    await client.until(id, [kind === 'completed' ? 'COMPLETED' : 'FAILED']);
    await quiet(app);
    return id;
  };

  /** Runs `plant` and returns what the report gained: the violations that were not there before. */
  const planted = async (
    plant: () => Promise<unknown>,
  ): Promise<Array<Pick<InvariantViolation, 'checkoutId' | 'rule'>>> => {
    const key = (v: InvariantViolation) => `${v.checkoutId} ${v.rule}`;
    const before = new Set((await report()).violations.map(key));
    await plant();
    return (await report()).violations
      .filter((v) => !before.has(key(v)))
      .map(({ checkoutId, rule }) => ({ checkoutId, rule }));
  };

  return { report, checkout, planted };
}
