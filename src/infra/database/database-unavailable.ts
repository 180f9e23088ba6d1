import { types } from 'node:util';
import { CannotExecuteNotConnectedError, ConnectionIsNotSetError, QueryFailedError, TypeORMError } from 'typeorm';
import { isOutsideFailure } from '../failure-source';

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is not there for us: class 08 (connection exception), 57P01 to 57P03
 * (shut down, crashed, starting up) and 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** Messages of pg and pg-pool that carry no code. */
const LOST_CONNECTION =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)$/;

/**
 * TypeORM's QueryRunnerAlreadyReleasedError. The app's transactions release their runner only once
 * they end, so inside one it means TypeORM let the runner go when its connection broke (pg's
 * 'error' event while the transaction waited between statements, on an email's hand-over say).
 */
const RUNNER_RELEASED = /^Query runner already released/;

/**
 * Whether an error means "Postgres cannot be reached" rather than "this query is wrong": the first
 * is the server's state, worth a 503 and a retry, the second a bug. Unreachable at start, TypeORM
 * says "Driver not Connected"; lost later, pg reports the socket error or the server's SQLSTATE,
 * or TypeORM says the transaction's runner was released (the connection broke between statements).
 * An outside service's failure is never Postgres', whatever its code (ADR 0093).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // Socket errors come from Node's own realm: `instanceof Error` misses them where code runs in
  // another one (Jest's sandbox, for instance).
  if (!(error instanceof Error || types.isNativeError(error)) || isOutsideFailure(error)) return false;
  if (error instanceof ConnectionIsNotSetError || error instanceof CannotExecuteNotConnectedError) return true;
  if (error instanceof TypeORMError && error.message === 'Driver not Connected') return true;
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested)) return nested.length > 0 && nested.every(isDatabaseUnavailable);
  if (error instanceof QueryFailedError && error.driverError !== error) return isDatabaseUnavailable(error.driverError);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  return LOST_CONNECTION.test(error.message) || RUNNER_RELEASED.test(error.message);
}
