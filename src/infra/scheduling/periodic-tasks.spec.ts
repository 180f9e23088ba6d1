import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { DatabaseConnector } from '../database/database.connector';
import type { MetricsConfig } from '../metrics/metrics.config';
import { MetricsRegistry } from '../metrics/metrics.registry';
import type { AppRoles } from '../roles/app-roles';
import { PeriodicTasks } from './periodic-tasks';

const HOUR = 3_600_000; // no tick fires during a test: runs come from runNow

describe('PeriodicTasks, as the scrapes see them', () => {
  const scheduler = new SchedulerRegistry();
  let tasks: PeriodicTasks;
  let registry: MetricsRegistry;

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    registry = new MetricsRegistry({ readIntervalMs: 1_000 } as MetricsConfig);
    const ready = { ready: Promise.resolve() } as unknown as DatabaseConnector;
    const roles = { has: (role: string) => role === 'worker' } as unknown as AppRoles;
    tasks = new PeriodicTasks(scheduler, ready, roles, registry);
  });
  afterEach(async () => {
    await tasks.beforeApplicationShutdown();
    jest.restoreAllMocks();
  });

  const failing = async () =>
    (await registry.getSingleMetric('periodic_task_failing')!.get()).values.map(({ labels, value }) => ({
      task: labels.task,
      value,
    }));

  it("when a task's runs fail, then periodic_task_failing is 1 for it, and 0 again once they work; a task of another role is not shown", async () => {
    let broken = true;
    const watch = tasks.register('a-watch', 'worker', HOUR, () =>
      broken ? Promise.reject(new Error('column "x" does not exist')) : Promise.resolve(),
    );
    tasks.register('a-sweep', 'worker', HOUR, () => Promise.resolve());
    tasks.register('elsewhere', 'orchestrator', HOUR, () => Promise.reject(new Error('never runs here')));
    tasks.onApplicationBootstrap();
    await new Promise((resolve) => setImmediate(resolve));

    await watch.runNow();
    expect(await failing()).toEqual([
      { task: 'a-watch', value: 1 },
      { task: 'a-sweep', value: 0 },
    ]);

    broken = false;
    await watch.runNow();
    expect(await failing()).toEqual([
      { task: 'a-watch', value: 0 },
      { task: 'a-sweep', value: 0 },
    ]);
  });
});
