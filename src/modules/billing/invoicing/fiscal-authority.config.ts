import { type ConfigType, registerAs } from '@nestjs/config';
import { readParticipantClientEnv } from '../../../infra/http/participant-client.config';

/** Where the fiscal authority service listens unless FISCAL_AUTHORITY_URL says: its own default port. */
export const DEFAULT_FISCAL_AUTHORITY_URL = 'http://127.0.0.1:4020';

/**
 * The fiscal authority service, over HTTP (HttpFiscalAuthority): FISCAL_AUTHORITY_URL (the
 * service's default address), FISCAL_AUTHORITY_TIMEOUT_MS (5000), FISCAL_AUTHORITY_ATTEMPTS (3)
 * and FISCAL_AUTHORITY_BACKOFF_MS (100), checked as the card gateway's are.
 */
export const fiscalAuthorityConfig = registerAs('fiscalAuthority', () => {
  const { url, ...bounds } = readParticipantClientEnv('FISCAL_AUTHORITY', DEFAULT_FISCAL_AUTHORITY_URL);
  return { url: url ?? DEFAULT_FISCAL_AUTHORITY_URL, ...bounds };
});
export type FiscalAuthorityConfig = ConfigType<typeof fiscalAuthorityConfig>;
