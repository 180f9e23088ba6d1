/**
 * The longest a suspect waits for the deliveries in flight in its process to end before it runs
 * beside them (see inTurn): a handler that hangs must not stop the process's queues for good.
 */
const SUSPECT_WAITS_AT_MOST_MS = 10_000;

/**
 * Who runs beside whom in one process. The deliveries suspected of killing their worker run one at
 * a time, each with the process to itself: no delivery of any queue starts while one waits or runs
 * (besideOthers), and it waits for those in flight to end. A death while it runs is then its own,
 * and no delivery of another queue is in hand to be charged beside it.
 */
export class DeliveryTurns {
  /** The end of this process's line of deliveries that run alone. */
  private turns: Promise<void> = Promise.resolve();
  /** Deliveries that run alone, in line or running: while there is one, no other starts here. */
  private suspects = 0;
  /** Deliveries of other jobs in flight in this process, of every queue. */
  private inFlight = 0;
  /** Suspects waiting for inFlight to fall to 0. */
  private readonly drained = new Set<() => void>();

  /**
   * Runs a suspect in its turn. Those waiting their turn are not running, and a crash meanwhile is
   * not counted against them (they recorded no run). One that waited SUSPECT_WAITS_AT_MOST_MS for a
   * handler that does not end runs beside it, `aloneInProcess` false: its death is then not charged
   * to it, and the deliveries in flight are counted as any are at a death, and run alone in turn
   * from then on.
   */
  inTurn<T>(work: (aloneInProcess: boolean) => Promise<T>): Promise<T> {
    this.suspects += 1;
    const mine = this.turns.then(() => this.othersEnded()).then(work);
    this.turns = mine.then(
      () => undefined,
      () => undefined,
    );
    return mine.finally(() => {
      this.suspects -= 1;
    });
  }

  /**
   * Runs the deliveries of a job that is not suspect, beside the others in flight. While a suspect
   * waits or runs, `instead` puts the job back, unspent, for a moment (or for another process):
   * started now, it would be in hand if the suspect killed the process, and charged.
   */
  async besideOthers<T>(work: () => Promise<T>, instead: () => Promise<never>): Promise<T> {
    if (this.suspects > 0) return instead();
    this.inFlight += 1;
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) [...this.drained].forEach((ended) => ended());
    }
  }

  /** Resolves once no delivery of another job is in flight here (true), or after the bound (false). */
  private othersEnded(): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const ended = () => {
        clearTimeout(timer);
        this.drained.delete(ended);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.drained.delete(ended);
        resolve(false);
      }, SUSPECT_WAITS_AT_MOST_MS);
      this.drained.add(ended);
    });
  }
}
