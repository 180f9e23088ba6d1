import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { PeriodicTask } from './periodic-task';

/** A run that lasts until the test lets it end; `runs` are the promises each run returned. */
function gatedWork() {
  const gates: Array<() => void> = [];
  const runs: Array<Promise<void>> = [];
  const work = jest.fn(() => {
    const run = new Promise<void>((resolve) => gates.push(resolve));
    runs.push(run);
    return run;
  });
  const release = async () => {
    gates.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { work, release, runs };
}

describe('PeriodicTask', () => {
  const scheduler = new SchedulerRegistry();
  const HOUR = 3_600_000; // no tick fires during a test: runs come from runNow and wake
  let task: PeriodicTask | undefined;

  afterEach(async () => {
    await task?.stop(scheduler);
    jest.restoreAllMocks();
  });

  it('given it has not started, when woken, then it does not run', async () => {
    const work = jest.fn(() => Promise.resolve());
    task = new PeriodicTask('not-started', HOUR, work);

    task.wake();

    expect(work).not.toHaveBeenCalled();
  });

  it('when woken during a run, then it runs once more right after, however often it was woken', async () => {
    const { work, release } = gatedWork();
    task = new PeriodicTask('woken', HOUR, work, true);
    task.start(scheduler);
    expect(work).toHaveBeenCalledTimes(1);

    task.wake();
    task.wake();
    await release();
    expect(work).toHaveBeenCalledTimes(2);

    await release();
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('when woken after the run made its last check of wakes but before it ended, then it runs once more', async () => {
    const { work, release, runs } = gatedWork();
    task = new PeriodicTask('woken-late', HOUR, work, true);
    task.start(scheduler);
    // Reactions to the run's end go in the order they were added: the loop's (added at start)
    // checks for wakes first, and this one wakes the task before the run in progress is cleared.
    const wakeLate = runs[0].then(() => task?.wake());

    await release();
    await wakeLate;
    await new Promise((resolve) => setImmediate(resolve));

    expect(work).toHaveBeenCalledTimes(2);
    await release();
  });

  it('when a tick finds a run in progress, then it is skipped', async () => {
    const { work, release } = gatedWork();
    task = new PeriodicTask('ticked', HOUR, work, true);
    task.start(scheduler);

    void task.runNow();
    await release();

    expect(work).toHaveBeenCalledTimes(1);
  });

  it('when runs keep failing, then it warns once, and says so once when it works again', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    let failing = true;
    task = new PeriodicTask('flaky', HOUR, () =>
      failing ? Promise.reject(new Error('database away')) : Promise.resolve(),
    );
    task.start(scheduler);

    await task.runNow();
    await task.runNow();
    await task.runNow();
    expect(task.isFailing).toBe(true);
    failing = false;
    await task.runNow();
    await task.runNow();

    expect(task.isFailing).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith('flaky failed, will retry: database away');
    expect(log).toHaveBeenCalledTimes(1);
    expect(log).toHaveBeenCalledWith('flaky works again');
  });

  it('when stopped, then it waits for the run in progress and runs no more', async () => {
    const { work, release } = gatedWork();
    task = new PeriodicTask('stopping', HOUR, work, true);
    task.start(scheduler);

    let stopped = false;
    const stopping = task.stop(scheduler).then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    expect(scheduler.doesExist('interval', 'stopping')).toBe(false);

    await release();
    await stopping;
    task.wake();
    await task.runNow();
    expect(work).toHaveBeenCalledTimes(1);
  });
});
