/**
 * Preloaded into an app child process (`-r`) to give it a clock CLOCK_SKEW_MS off the real one,
 * as a host whose NTP drifted would have: `Date.now()` and `new Date()` are shifted, nothing else.
 * Timers and Postgres are untouched, so only code that compares Node's time with the database's
 * notices.
 */
const skewMs = Number(process.env.CLOCK_SKEW_MS ?? 0);
const RealDate = Date;

class SkewedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + skewMs);
    else super(...(args as [string | number | Date]));
  }

  static override now(): number {
    return RealDate.now() + skewMs;
  }
}

globalThis.Date = SkewedDate as DateConstructor;
