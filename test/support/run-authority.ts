import { RunningFiscalAuthority } from './fiscal-authority-service';

/** Where the run's fiscal authority listens, for the apps the test files start (test-env.ts). */
export const RUN_AUTHORITY_URL = 'TEST_FISCAL_AUTHORITY_URL';

let authority: RunningFiscalAuthority | undefined;

/**
 * Once per run, in Jest's own process: the fiscal authority every checkout of the run invoices at,
 * as it would in a deployment, on a free port and over a database of its own. Its default window
 * (a day) and no faults: a test that shortens the window or injects a fault starts one of its own.
 * Started by whichever lane's setup comes first; the others find it.
 */
export async function startRunAuthority(): Promise<void> {
  if (authority) return;
  authority = await RunningFiscalAuthority.start({ adminToken: null });
  process.env[RUN_AUTHORITY_URL] = authority.url;
}

export async function stopRunAuthority(): Promise<void> {
  await authority?.stop();
  authority = undefined;
}
