import { type ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { EnvBoolean, readEnv } from '../../../config/env';

class CardGatewayEnv {
  /** Unset: the fake gateway inside the app (FakeCardGateway); set: the service at this URL, over HTTP. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'must be an http:// or https:// URL' })
  CARD_GATEWAY_URL?: string = undefined;
  // Each call is made inside its delivery's open transaction: a silent gateway must not hold it
  // for long, and a timeout is not retried inside the call (the answer may only be late).
  /** How long one request may take before the call gives up on it. */
  @IsInt() @Min(100) @Max(60_000) CARD_GATEWAY_TIMEOUT_MS: number = 5_000;
  /** Requests per call when the gateway answers 502 or 503 or refuses the connection, the first included. */
  @IsInt() @Min(1) @Max(10) CARD_GATEWAY_ATTEMPTS: number = 3;
  /** The wait before the second request of a call, doubled before each next one. */
  @IsInt() @Min(0) @Max(10_000) CARD_GATEWAY_BACKOFF_MS: number = 100;
  /**
   * Whether the gateway voids an authorization by the key it was requested with (the service's
   * setting of the same name, and the fake's). Off, a compensation with no payment row of ours
   * looks the checkout up at the gateway before it voids by id.
   */
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) CARD_GATEWAY_VOIDS_BY_KEY: boolean = true;
}

export const cardGatewayConfig = registerAs('cardGateway', () => {
  const env = readEnv(CardGatewayEnv);
  return {
    url: env.CARD_GATEWAY_URL?.replace(/\/+$/, ''),
    timeoutMs: env.CARD_GATEWAY_TIMEOUT_MS,
    attempts: env.CARD_GATEWAY_ATTEMPTS,
    backoffMs: env.CARD_GATEWAY_BACKOFF_MS,
    voidsByKey: env.CARD_GATEWAY_VOIDS_BY_KEY,
  };
});
export type CardGatewayConfig = ConfigType<typeof cardGatewayConfig>;
