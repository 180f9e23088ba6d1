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

/** The run's authority, where the apps that the tests start invoice; a run without one is a mistake. */
export function runAuthorityUrl(): string {
  const url = process.env[RUN_AUTHORITY_URL];
  if (!url) throw new Error(`${RUN_AUTHORITY_URL} is not set: the run's setup starts the authority (run-authority.ts)`);
  return url;
}

export async function stopRunAuthority(): Promise<void> {
  await authority?.stop();
  authority = undefined;
}

/** How many invoices the authority at `url` filed under `reference`: counted where they leave the system. */
export async function invoicesAt(url: string, reference: string): Promise<number> {
  const response = await fetch(`${url}/v1/references/${encodeURIComponent(reference)}/documents`);
  if (!response.ok) throw new Error(`the fiscal authority did not list ${reference}: ${response.status}`);
  const { documents } = (await response.json()) as { documents: Array<{ kind: string }> };
  return documents.filter((document) => document.kind === 'invoice').length;
}
