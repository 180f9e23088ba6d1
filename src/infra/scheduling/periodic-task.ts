import { Logger } from '@nestjs/common';
import type { SchedulerRegistry } from '@nestjs/schedule';
import { describeError } from '../errors';

/**
 * Background work on a @nestjs/schedule interval: one run at a time (a tick that finds the
 * previous run still going is skipped), a failure logged and retried at the next tick, and a
 * stop that waits for the run in progress.
 */
export class PeriodicTask {
  private readonly logger: Logger;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<unknown>,
  ) {
    this.logger = new Logger(name);
  }

  start(scheduler: SchedulerRegistry): void {
    if (this.stopped) return;
    scheduler.addInterval(
      this.name,
      setInterval(() => void this.runNow(), this.intervalMs),
    );
  }

  async stop(scheduler: SchedulerRegistry): Promise<void> {
    this.stopped = true;
    if (scheduler.doesExist('interval', this.name)) scheduler.deleteInterval(this.name);
    await this.running;
  }

  /** Runs now, unless a run is in progress or the task has stopped. */
  async runNow(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = this.work()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.warn(`${this.name} failed, will retry: ${describeError(error)}`))
      .finally(() => (this.running = undefined));
    await this.running;
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}
