import { Global, Module } from '@nestjs/common';
import { FaultsController } from './faults.controller';
import { Faults } from './faults';

@Global()
@Module({ controllers: [FaultsController], providers: [Faults], exports: [Faults] })
export class FaultsModule {}
