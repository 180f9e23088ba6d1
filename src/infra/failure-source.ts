import { describeError } from './errors';

/**
 * A failure of an outside service the app calls (the SMTP server, a card gateway): the delivery's
 * own failure, whatever its code says. A socket error carries the same code (ETIMEDOUT,
 * ECONNREFUSED) whoever the socket led to, and only Postgres or Redis out of reach postpones a
 * delivery without spending an attempt; an outside service that does not answer spends attempts
 * and ends in a dead letter, as a failing handler does (ADR 0093).
 */
export class OutsideFailure extends Error {
  constructor(
    /** Who failed: `smtp`, `card-gateway`. */
    readonly service: string,
    cause: unknown,
  ) {
    super(`${service}: ${describeError(cause)}`, { cause });
    this.name = 'OutsideFailure';
  }
}

/** Calls an outside service: whatever the call throws is that service's failure (OutsideFailure). */
export async function callOutside<T>(service: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw error instanceof OutsideFailure ? error : new OutsideFailure(service, error);
  }
}

/**
 * Whether an error is an outside service's failure, or wraps one (as `cause` or TypeORM's
 * `driverError`): a wrapper may quote its message, which must not read as Postgres' or Redis'.
 */
export function isOutsideFailure(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  if (error instanceof OutsideFailure) return true;
  const { cause, driverError } = error as { cause?: unknown; driverError?: unknown };
  return (
    (cause !== error && isOutsideFailure(cause, depth + 1)) ||
    (driverError !== error && isOutsideFailure(driverError, depth + 1))
  );
}
