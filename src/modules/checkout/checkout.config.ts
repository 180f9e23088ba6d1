import { type ConfigType, registerAs } from '@nestjs/config';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { readEnv } from '../../config/env';

export const CHECKOUT_MODES = ['choreography', 'orchestration'] as const;
export type CheckoutMode = (typeof CHECKOUT_MODES)[number];

class CheckoutEnv {
  @IsIn(CHECKOUT_MODES, { message: `must be one of ${CHECKOUT_MODES.join(', ')}` })
  CHECKOUT_MODE: string = 'choreography';
  /** A checkout still PENDING after this long counts as stuck. */
  @IsInt() @Min(1_000) @Max(86_400_000) CHECKOUT_STUCK_AFTER_MS: number = 60_000;
  /**
   * A choreographed checkout that makes no progress for this long goes to INTERVENTION: in a
   * choreography no one else notices a lost message or a participant that never answers.
   */
  @IsInt() @Min(500) @Max(86_400_000) CHECKOUT_STALLED_AFTER_MS: number = 300_000;
  /** How long a request waits for another with the same Idempotency-Key before answering 409. */
  @IsInt() @Min(10) @Max(60_000) CHECKOUT_IDEMPOTENCY_WAIT_MS: number = 5_000;
  /** An Idempotency-Key is remembered this long; after it, the same key starts a new checkout. */
  @IsInt() @Min(1) @Max(8_760) CHECKOUT_IDEMPOTENCY_TTL_HOURS: number = 24;
}

export const checkoutConfig = registerAs('checkout', () => {
  const env = readEnv(CheckoutEnv);
  return {
    defaultMode: env.CHECKOUT_MODE as CheckoutMode,
    stuckAfterMs: env.CHECKOUT_STUCK_AFTER_MS,
    idempotencyWaitMs: env.CHECKOUT_IDEMPOTENCY_WAIT_MS,
    idempotencyTtlHours: env.CHECKOUT_IDEMPOTENCY_TTL_HOURS,
    stalledAfterMs: env.CHECKOUT_STALLED_AFTER_MS,
  };
});
export type CheckoutConfig = ConfigType<typeof checkoutConfig>;
