import { type ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean } from 'class-validator';
import { EnvBoolean, readEach, readEnv } from '../../../config/env';
import { readParticipantClientEnv } from '../../../infra/http/participant-client.config';

class CardGatewayEnv {
  /**
   * Whether the gateway voids an authorization by the key it was requested with (the service's
   * setting of the same name). Off, a compensation with no payment row of ours looks the
   * checkout up at the gateway before it voids by id.
   */
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) CARD_GATEWAY_VOIDS_BY_KEY: boolean = true;
}

/** Where the card gateway service listens unless CARD_GATEWAY_URL says: its own default port. */
export const DEFAULT_CARD_GATEWAY_URL = 'http://127.0.0.1:4010';

/**
 * The card gateway service, over HTTP (HttpCardGateway): CARD_GATEWAY_URL (the service's own
 * default address unless set), with CARD_GATEWAY_TIMEOUT_MS, _ATTEMPTS and _BACKOFF_MS
 * (ParticipantClient).
 */
export const cardGatewayConfig = registerAs('cardGateway', () => {
  const [client, env] = readEach(
    () => readParticipantClientEnv('CARD_GATEWAY', DEFAULT_CARD_GATEWAY_URL),
    () => readEnv(CardGatewayEnv),
  );
  return { ...client, url: client.url ?? DEFAULT_CARD_GATEWAY_URL, voidsByKey: env.CARD_GATEWAY_VOIDS_BY_KEY };
});
export type CardGatewayConfig = ConfigType<typeof cardGatewayConfig>;
