import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { Comparisons } from './comparisons';
import { ComparisonsController } from './comparisons.controller';
import { FeaturesController } from './features.controller';
import { InvariantsController } from './invariants.controller';
import { operationsConfig } from './operations.config';
import { Invariants } from './invariants';

/** Operators' views across the modules, the latest comparison of the two modes, and what this app offers. */
@Module({
  imports: [ConfigModule.forFeature(operationsConfig)],
  controllers: [InvariantsController, ComparisonsController, FeaturesController],
  providers: [Invariants, Comparisons],
  exports: [Invariants],
})
export class OperationsModule {}
