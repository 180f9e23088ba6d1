import { type ConfigType, registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { readEnv } from '../../../config/env';

class SagaEnv {
  /** How long the orchestrator waits for an answer to a step's first send; each resend waits twice as long. */
  @IsInt() @Min(50) @Max(600_000) SAGA_STEP_TIMEOUT_MS: number = 5_000;
  /** Sends of a step before it is given up on (and, if it is compensable, undone). */
  @IsInt() @Min(1) @Max(100) SAGA_STEP_ATTEMPTS: number = 3;
  /** Sends of the capture (the pivot) before a person is asked what happened. */
  @IsInt() @Min(1) @Max(100) SAGA_PIVOT_ATTEMPTS: number = 6;
  /** Sends of a compensation before a person takes over. */
  @IsInt() @Min(1) @Max(100) SAGA_COMPENSATION_ATTEMPTS: number = 5;
  /**
   * Sends of a step that waits out its participant's outages (the invoice) before a person is
   * called: with the waits doubling from SAGA_STEP_TIMEOUT_MS up to SAGA_OUTAGE_MAX_WAIT_MS, the
   * defaults wait about 15 hours.
   */
  @IsInt() @Min(1) @Max(1_000) SAGA_OUTAGE_ATTEMPTS: number = 24;
  /** The longest wait between two sends of such a step. */
  @IsInt() @Min(1_000) @Max(86_400_000) SAGA_OUTAGE_MAX_WAIT_MS: number = 3_600_000;
  /** How often due deadlines are looked for. */
  @IsInt() @Min(10) @Max(60_000) SAGA_SWEEP_INTERVAL_MS: number = 500;
}

export const sagaConfig = registerAs('saga', () => {
  const env = readEnv(SagaEnv);
  return {
    policy: {
      stepTimeoutMs: env.SAGA_STEP_TIMEOUT_MS,
      stepAttempts: env.SAGA_STEP_ATTEMPTS,
      pivotAttempts: env.SAGA_PIVOT_ATTEMPTS,
      compensationAttempts: env.SAGA_COMPENSATION_ATTEMPTS,
      outage: { attempts: env.SAGA_OUTAGE_ATTEMPTS, maxWaitMs: env.SAGA_OUTAGE_MAX_WAIT_MS },
    },
    sweepIntervalMs: env.SAGA_SWEEP_INTERVAL_MS,
  };
});
export type SagaConfig = ConfigType<typeof sagaConfig>;
