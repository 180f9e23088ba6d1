import { type ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean } from 'class-validator';
import { EnvBoolean, readEach, readEnv } from '../../../config/env';
import { readParticipantClientEnv } from '../../../infra/http/participant-client.config';

class CardGatewayEnv {
  /**
   * Whether the gateway voids an authorization by the key it was requested with (the service's
   * setting of the same name, and the fake's). Off, a compensation with no payment row of ours
   * looks the checkout up at the gateway before it voids by id.
   */
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) CARD_GATEWAY_VOIDS_BY_KEY: boolean = true;
}

/**
 * CARD_GATEWAY_URL unset: the fake gateway inside the app (FakeCardGateway); set: the service at
 * this URL, over HTTP, with CARD_GATEWAY_TIMEOUT_MS, _ATTEMPTS and _BACKOFF_MS (ParticipantClient).
 */
export const cardGatewayConfig = registerAs('cardGateway', () => {
  const [client, env] = readEach(
    () => readParticipantClientEnv('CARD_GATEWAY'),
    () => readEnv(CardGatewayEnv),
  );
  return { ...client, voidsByKey: env.CARD_GATEWAY_VOIDS_BY_KEY };
});
export type CardGatewayConfig = ConfigType<typeof cardGatewayConfig>;
