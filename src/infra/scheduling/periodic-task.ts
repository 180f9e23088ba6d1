import { Logger } from '@nestjs/common';
import type { SchedulerRegistry } from '@nestjs/schedule';
import { describeError } from '../errors';

/**
 * Background work on a @nestjs/schedule interval: one run at a time (a tick that finds the
 * previous run still going is skipped), a stop that waits for the run in progress, and a failure
 * retried at the next tick and logged once per outage, not once per tick. `wake()` asks for a run
 * before the next tick: at once, or right after the run in progress.
 */
export class PeriodicTask {
  private readonly logger: Logger;
  private running?: Promise<void>;
  private wokenWhileRunning = false;
  private started = false;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<unknown>,
    private readonly runAtStart = false,
  ) {
    this.logger = new Logger(name);
  }

  start(scheduler: SchedulerRegistry): void {
    if (this.stopped) return;
    this.started = true;
    scheduler.addInterval(
      this.name,
      setInterval(() => void this.runNow(), this.intervalMs),
    );
    if (this.runAtStart) void this.runNow();
  }

  async stop(scheduler: SchedulerRegistry): Promise<void> {
    this.stopped = true;
    if (scheduler.doesExist('interval', this.name)) scheduler.deleteInterval(this.name);
    await this.running;
  }

  /** Runs now, unless a run is in progress or the task has stopped. */
  async runNow(): Promise<void> {
    if (this.running || this.stopped) return;
    this.running = this.runUntilSettled().finally(() => {
      this.running = undefined;
      // A wake that came after the loop's last look (it saw a run in progress) is served here.
      if (this.wokenWhileRunning && !this.failing) void this.runNow();
    });
    await this.running;
  }

  /** Runs now, or once more as soon as the run in progress ends. */
  wake(): void {
    if (!this.isActive) return;
    if (this.running) this.wokenWhileRunning = true;
    else void this.runNow();
  }

  /** Started in this process (its role, the database ready) and not stopped. */
  get isActive(): boolean {
    return this.started && !this.stopped;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Its last run failed: it is retried at each tick, and warned of once (periodic_task_failing). */
  get isFailing(): boolean {
    return this.failing;
  }

  get taskName(): string {
    return this.name;
  }

  private async runUntilSettled(): Promise<void> {
    do {
      this.wokenWhileRunning = false;
      try {
        await this.work();
        if (this.failing) this.logger.log(`${this.name} works again`);
        this.failing = false;
      } catch (error) {
        if (!this.failing) this.logger.warn(`${this.name} failed, will retry: ${describeError(error)}`);
        this.failing = true;
        return;
      }
    } while (this.wokenWhileRunning && !this.stopped);
  }
}
