import { Global, Module } from '@nestjs/common';
import { PeriodicTasks } from './periodic-tasks';

@Global()
@Module({ providers: [PeriodicTasks], exports: [PeriodicTasks] })
export class SchedulingModule {}
