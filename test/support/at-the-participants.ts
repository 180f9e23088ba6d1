import type { OperationRecord } from '../../participants/card-gateway/domain/operations';
import { type FiledMoney, moneyIn } from '../../src/modules/billing/domain/filed-money';

/**
 * What left the system, counted where it left: at the participants, from their listings, as any
 * client of theirs would ask (the run's own, or a test's). A count there can show a 2.
 */

/** Approved operations of one reference, by operation: the effects, counted where a 2 can show up. */
export interface Effects {
  authorize: number;
  capture: number;
  void: number;
  refund: number;
}

/** Every operation the card gateway at `url` filed under a reference: the run's, or a test's own. */
export async function operationsAt(url: string, reference: string): Promise<OperationRecord[]> {
  const response = await fetch(`${url}/v1/references/${encodeURIComponent(reference)}/operations`);
  if (!response.ok) throw new Error(`the card gateway did not list ${reference}: ${response.status}`);
  // Parsed here, not by `response.json()`: its arrays would be of fetch's realm, not the test's,
  // and a deep-equality check would tell them apart from the test's own.
  return (JSON.parse(await response.text()) as { operations: OperationRecord[] }).operations;
}

/** The approved operations the card gateway at `url` filed under a reference, counted by operation. */
export async function effectsAt(url: string, reference: string): Promise<Effects> {
  const approved = (await operationsAt(url, reference)).filter((operation) => operation.approved);
  const count = (name: string) => approved.filter((operation) => operation.operation === name).length;
  return { authorize: count('authorize'), capture: count('capture'), void: count('void'), refund: count('refund') };
}

/** The money the card gateway at `url` holds, took and gave back under a reference, as the checker counts it. */
export async function moneyAt(url: string, reference: string): Promise<FiledMoney> {
  return moneyIn(await operationsAt(url, reference));
}

/** How many invoices the authority at `url` filed under `reference`: counted where they leave the system. */
export async function invoicesAt(url: string, reference: string): Promise<number> {
  const response = await fetch(`${url}/v1/references/${encodeURIComponent(reference)}/documents`);
  if (!response.ok) throw new Error(`the fiscal authority did not list ${reference}: ${response.status}`);
  const { documents } = JSON.parse(await response.text()) as { documents: Array<{ kind: string }> };
  return documents.filter((document) => document.kind === 'invoice').length;
}
