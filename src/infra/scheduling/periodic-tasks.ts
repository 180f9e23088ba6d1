import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Gauge } from 'prom-client';
import type { AppRole } from '../../config/app.config';
import { DatabaseConnector } from '../database/database.connector';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { AppRoles } from '../roles/app-roles';
import { PeriodicTask } from './periodic-task';

/**
 * The app's background work on @nestjs/schedule intervals. A component registers its task with
 * the role that runs it; the task starts once the database is ready, in processes with that role,
 * and stops (waiting for a run in progress) before the connections close. `periodic_task_failing`
 * says, for each task running here, whether its last run failed: a watch whose query throws is
 * otherwise only a line of log at warn.
 */
@Injectable()
export class PeriodicTasks implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly tasks: Array<{ task: PeriodicTask; role: AppRole }> = [];

  constructor(
    private readonly scheduler: SchedulerRegistry,
    private readonly connector: DatabaseConnector,
    private readonly roles: AppRoles,
    @Optional() registry?: MetricsRegistry,
  ) {
    if (!registry) return;
    const tasks = this.tasks;
    new Gauge({
      name: 'periodic_task_failing',
      help: "1 while a background task's runs fail (it retries at each tick), 0 while they work; tasks running in this process",
      labelNames: ['task'],
      registers: [registry],
      collect() {
        this.reset();
        for (const { task } of tasks.filter(({ task }) => task.isActive)) {
          this.set({ task: task.taskName }, task.isFailing ? 1 : 0);
        }
      },
    });
  }

  /** `runAtStart`: run once as soon as the task starts, not only after the first interval. */
  register(
    name: string,
    role: AppRole,
    intervalMs: number,
    work: () => Promise<unknown>,
    { runAtStart = false } = {},
  ): PeriodicTask {
    const task = new PeriodicTask(name, intervalMs, work, runAtStart);
    this.tasks.push({ task, role });
    return task;
  }

  onApplicationBootstrap(): void {
    const mine = this.tasks.filter(({ role }) => this.roles.has(role));
    if (mine.length === 0) return;
    void this.connector.ready.then(() => mine.forEach(({ task }) => task.start(this.scheduler)));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.tasks.map(({ task }) => task.stop(this.scheduler)));
  }
}
