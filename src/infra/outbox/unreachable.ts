import { isOutsideFailure } from '../failure-source';

/** Socket errors that mean Postgres or Redis could not be reached, or the connection was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** SQLSTATEs of a lost or refused connection: class 08, shutdowns, start-up, too many clients. */
const POSTGRES_CODES = /^(08...|57P0[123]|53300)$/;

/** "Query runner already released": TypeORM let a transaction's runner go when its connection broke. */
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Driver not Connected|Query runner already released|connection error|Connection is closed|Stream isn't writeable|Reached the max retries per request/i;

/**
 * Whether an error says that Postgres or Redis was unreachable (not that the message or its
 * handler is wrong): such a delivery is tried again later without spending its attempts. An
 * outside service's failure is never ours, whatever its code (ADR 0093).
 */
export function isUnreachable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3 || isOutsideFailure(error)) return false;
  if (error instanceof AggregateError && error.errors.some((inner) => isUnreachable(inner, depth + 1))) return true;
  const { code, message, driverError, cause } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_CODES.test(code))) return true;
  if (typeof message === 'string' && MESSAGES.test(message)) return true;
  return isUnreachable(driverError, depth + 1) || isUnreachable(cause, depth + 1);
}
