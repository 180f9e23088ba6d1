import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { InvalidEnvironmentError, readEnv } from '../../config/env';
import type { ParticipantClientSettings } from './participant-client';

/** The variables of a participant's client, under the participant's prefix (`<PREFIX>_URL`, ...). */
class ParticipantClientEnv {
  /** The service's base URL. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'must be an http:// or https:// URL' })
  URL?: string = undefined;
  // Each call is made inside its delivery's open transaction: a silent service must not hold it
  // for long, and a timeout is not retried inside the call (the answer may only be late).
  /** How long one request may take before the call gives up on it. */
  @IsInt() @Min(100) @Max(60_000) TIMEOUT_MS: number = 5_000;
  /** Requests per call when the service answers 502 or 503 or refuses the connection, the first included. */
  @IsInt() @Min(1) @Max(10) ATTEMPTS: number = 3;
  /** The wait before the second request of a call, doubled before each next one. */
  @IsInt() @Min(0) @Max(10_000) BACKOFF_MS: number = 100;
}

const NAMES = Object.keys(new ParticipantClientEnv());

/**
 * `<PREFIX>_URL` (`defaultUrl` when unset, if any; without a trailing slash),
 * `<PREFIX>_TIMEOUT_MS` (5000), `<PREFIX>_ATTEMPTS` (3) and `<PREFIX>_BACKOFF_MS` (100), each by
 * its full name in a problem, as readEnv names any variable.
 */
export function readParticipantClientEnv(
  prefix: string,
  defaultUrl?: string,
  env: NodeJS.ProcessEnv = process.env,
): Omit<ParticipantClientSettings, 'url'> & { url: string | undefined } {
  const own = Object.fromEntries(
    NAMES.flatMap((name) => [
      [name, env[`${prefix}_${name}`]],
      [`${name}_FILE`, env[`${prefix}_${name}_FILE`]],
    ]),
  );
  try {
    const read = readEnv(ParticipantClientEnv, own);
    return {
      url: (read.URL ?? defaultUrl)?.replace(/\/+$/, ''),
      timeoutMs: read.TIMEOUT_MS,
      attempts: read.ATTEMPTS,
      backoffMs: read.BACKOFF_MS,
    };
  } catch (error) {
    if (!(error instanceof InvalidEnvironmentError)) throw error;
    // The names a problem starts with, and those of `set either X or X_FILE`: not a URL in a message.
    const named = new RegExp(`(^|either |or )(${NAMES.join('|')})(?=(_FILE)?\\b)`, 'g');
    throw new InvalidEnvironmentError(error.problems.map((problem) => problem.replace(named, `$1${prefix}_$2`)));
  }
}
