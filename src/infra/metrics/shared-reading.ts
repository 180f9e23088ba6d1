/**
 * A figure that the scrapes read from Postgres or Redis, read at most once every `maxAgeMs`
 * however often and however many at once they come: a scrape within that time gets the last
 * reading, and scrapes that come while a reading is under way wait for that one. A reading that
 * fails answers undefined (the gauge keeps its last value, and a scrape still answers while
 * Postgres or Redis does not) and is not tried again before `maxAgeMs` either.
 */
export class SharedReading<T> {
  private last?: { value: T | undefined; readAt: number };
  private underWay?: Promise<T | undefined>;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  get(): Promise<T | undefined> {
    if (this.last && Date.now() - this.last.readAt < this.maxAgeMs) return Promise.resolve(this.last.value);
    this.underWay ??= this.read()
      .catch((error: unknown) => {
        this.onError(error);
        return undefined;
      })
      .then((value) => {
        this.last = { value, readAt: Date.now() };
        this.underWay = undefined;
        return value;
      });
    return this.underWay;
  }
}
