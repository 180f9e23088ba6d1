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
    },
    sweepIntervalMs: env.SAGA_SWEEP_INTERVAL_MS,
  };
});
export type SagaConfig = ConfigType<typeof sagaConfig>;
