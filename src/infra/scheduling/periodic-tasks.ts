import { type BeforeApplicationShutdown, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { AppRole } from '../../config/app.config';
import { DatabaseConnector } from '../database/database.connector';
import { AppRoles } from '../roles/app-roles';
import { PeriodicTask } from './periodic-task';

/**
 * The app's background work on @nestjs/schedule intervals. A component registers its task with
 * the role that runs it; the task starts once the database is ready, in processes with that role,
 * and stops (waiting for a run in progress) before the connections close.
 */
@Injectable()
export class PeriodicTasks implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly tasks: Array<{ task: PeriodicTask; role: AppRole }> = [];

  constructor(
    private readonly scheduler: SchedulerRegistry,
    private readonly connector: DatabaseConnector,
    private readonly roles: AppRoles,
  ) {}

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
