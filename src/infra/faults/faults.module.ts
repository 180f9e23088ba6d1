import { Global, Module } from '@nestjs/common';
import { FaultsController } from './faults.controller';
import { Faults } from './faults';
import { StepFaults } from './step-faults';

@Global()
@Module({ controllers: [FaultsController], providers: [Faults, StepFaults], exports: [Faults, StepFaults] })
export class FaultsModule {}
