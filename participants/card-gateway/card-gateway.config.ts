/** What the card gateway service runs with, read from its own environment. */
export interface CardGatewayConfig {
  /** Where it listens; 0 takes a free port (the tests'). */
  port: number;
  host: string;
  /** Its own database, which the app never reads. */
  databaseUrl: string;
  /** Opens the admin API (/admin/...), where faults are set; unset, the admin API answers 404. */
  adminToken: string | undefined;
  /**
   * Whether a void may name its authorization by the key it was requested with. Off, the gateway
   * is one that offers no cancellation by the merchant's key: such a void is refused (422).
   */
  voidsByKey: boolean;
}

/** The Nest token of the service's settings. */
export const CARD_GATEWAY_CONFIG = Symbol('CardGatewayConfig');

/** Thrown at start when a variable has a value the service cannot run with; names every bad one. */
export class InvalidCardGatewayConfig extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'InvalidCardGatewayConfig';
  }
}

const set = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

/**
 * CARD_GATEWAY_PORT (4010), CARD_GATEWAY_HOST (127.0.0.1), CARD_GATEWAY_DATABASE_URL (a database
 * `card_gateway` on the local Postgres), CARD_GATEWAY_ADMIN_TOKEN (unset: no admin API) and
 * CARD_GATEWAY_VOIDS_BY_KEY (`true` or `false`, true unless said). A token short enough to guess
 * opens nothing: it is refused at start.
 */
export function readCardGatewayConfig(env: NodeJS.ProcessEnv = process.env): CardGatewayConfig {
  const problems: string[] = [];
  const port = Number(set(env.CARD_GATEWAY_PORT) ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    problems.push('CARD_GATEWAY_PORT: must be a port number (0 to 65535)');
  const databaseUrl = set(env.CARD_GATEWAY_DATABASE_URL) ?? 'postgres://postgres:postgres@127.0.0.1:5432/card_gateway';
  if (!/^postgres(ql)?:\/\/\S+\/[^/\s]+$/.test(databaseUrl))
    problems.push('CARD_GATEWAY_DATABASE_URL: must be a postgres:// URL naming a database');
  const adminToken = set(env.CARD_GATEWAY_ADMIN_TOKEN);
  if (adminToken !== undefined && adminToken.length < 16)
    problems.push('CARD_GATEWAY_ADMIN_TOKEN: must be at least 16 characters');
  const voidsByKey = set(env.CARD_GATEWAY_VOIDS_BY_KEY) ?? 'true';
  if (voidsByKey !== 'true' && voidsByKey !== 'false')
    problems.push('CARD_GATEWAY_VOIDS_BY_KEY: must be true or false');
  if (problems.length > 0) throw new InvalidCardGatewayConfig(problems);
  return {
    port,
    host: set(env.CARD_GATEWAY_HOST) ?? '127.0.0.1',
    databaseUrl,
    adminToken,
    voidsByKey: voidsByKey === 'true',
  };
}
