import { InvalidParticipantConfig, type ParticipantConfig, readParticipantConfig, set } from '../common/config';

/** What the card gateway service runs with, read from its own environment. */
export interface CardGatewayConfig extends ParticipantConfig {
  /**
   * Whether a void may name its authorization by the key it was requested with. Off, the gateway
   * is one that offers no cancellation by the merchant's key: such a void is refused (422).
   */
  voidsByKey: boolean;
}

/** The Nest token of the service's settings. */
export const CARD_GATEWAY_CONFIG = Symbol('CardGatewayConfig');

/**
 * CARD_GATEWAY_PORT (4010), CARD_GATEWAY_HOST (127.0.0.1), CARD_GATEWAY_DATABASE_URL (a database
 * `card_gateway` on the local Postgres), CARD_GATEWAY_ADMIN_TOKEN (unset: no admin API) and
 * CARD_GATEWAY_VOIDS_BY_KEY (`true` or `false`, true unless said). A token short enough to guess
 * opens nothing: it is refused at start.
 */
export function readCardGatewayConfig(env: NodeJS.ProcessEnv = process.env): CardGatewayConfig {
  const problems: string[] = [];
  const config = readParticipantConfig('CARD_GATEWAY', { port: 4010, database: 'card_gateway' }, env, problems);
  const voidsByKey = set(env.CARD_GATEWAY_VOIDS_BY_KEY) ?? 'true';
  if (voidsByKey !== 'true' && voidsByKey !== 'false')
    problems.push('CARD_GATEWAY_VOIDS_BY_KEY: must be true or false');
  if (problems.length > 0) throw new InvalidParticipantConfig(problems);
  return { ...config, voidsByKey: voidsByKey === 'true' };
}
