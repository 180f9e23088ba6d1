import { InvalidParticipantConfig, type ParticipantConfig, readParticipantConfig, set } from '../common/config';

/** What the fiscal authority service runs with, read from its own environment. */
export interface FiscalAuthorityConfig extends ParticipantConfig {
  /** How long after its authorization an invoice may still be cancelled; after it, a return note reverses it. */
  cancelWindowSeconds: number;
}

/**
 * FISCAL_AUTHORITY_PORT (4020), FISCAL_AUTHORITY_HOST (127.0.0.1), FISCAL_AUTHORITY_DATABASE_URL
 * (a database `fiscal_authority` on the local Postgres), FISCAL_AUTHORITY_ADMIN_TOKEN (unset: no
 * admin API) and FISCAL_AUTHORITY_CANCEL_WINDOW_SECONDS (86400, a day, as SEFAZ gives one; the
 * tests shorten it). A token short enough to guess opens nothing: it is refused at start.
 */
export function readFiscalAuthorityConfig(env: NodeJS.ProcessEnv = process.env): FiscalAuthorityConfig {
  const problems: string[] = [];
  const config = readParticipantConfig('FISCAL_AUTHORITY', { port: 4020, database: 'fiscal_authority' }, env, problems);
  const cancelWindowSeconds = Number(set(env.FISCAL_AUTHORITY_CANCEL_WINDOW_SECONDS) ?? 86_400);
  if (!Number.isInteger(cancelWindowSeconds) || cancelWindowSeconds < 1 || cancelWindowSeconds > 31_536_000)
    problems.push('FISCAL_AUTHORITY_CANCEL_WINDOW_SECONDS: must be a whole number of seconds (1 to 31536000)');
  if (problems.length > 0) throw new InvalidParticipantConfig(problems);
  return { ...config, cancelWindowSeconds };
}
