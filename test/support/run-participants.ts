import { RunningCardGateway } from './card-gateway-service';
import { RunningFiscalAuthority } from './fiscal-authority-service';

/** Where the run's participants listen, for the apps the test files start (test-env.ts). */
export const RUN_GATEWAY_URL = 'TEST_CARD_GATEWAY_URL';
export const RUN_AUTHORITY_URL = 'TEST_FISCAL_AUTHORITY_URL';

let running: { gateway: RunningCardGateway; authority: RunningFiscalAuthority } | undefined;

/**
 * Once per run, in Jest's own process: the card gateway every checkout of the run pays at and the
 * fiscal authority it invoices at, as in a deployment, each on a free port and over a database of
 * its own. Their defaults and no faults: a test that injects a fault, shortens the invoice window
 * or needs a gateway without cancellation by key starts one of its own. Started by whichever
 * lane's setup comes first; the others find them.
 */
export async function startRunParticipants(): Promise<void> {
  if (running) return;
  const [gateway, authority] = await Promise.all([
    RunningCardGateway.start({ adminToken: null }),
    RunningFiscalAuthority.start({ adminToken: null }),
  ]);
  running = { gateway, authority };
  process.env[RUN_GATEWAY_URL] = gateway.url;
  process.env[RUN_AUTHORITY_URL] = authority.url;
}

export async function stopRunParticipants(): Promise<void> {
  const stopping = running;
  running = undefined;
  if (stopping) await Promise.all([stopping.gateway.stop(), stopping.authority.stop()]);
}

/** The run's card gateway, where the apps that the tests start pay; a run without one is a mistake. */
export const runGatewayUrl = (): string => runUrl(RUN_GATEWAY_URL);

/** The run's authority, where the apps that the tests start invoice; a run without one is a mistake. */
export const runAuthorityUrl = (): string => runUrl(RUN_AUTHORITY_URL);

function runUrl(name: string): string {
  const url = process.env[name];
  if (!url) throw new Error(`${name} is not set: the run's setup starts the participants (run-participants.ts)`);
  return url;
}
