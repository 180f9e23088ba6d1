import { Module } from '@nestjs/common';
import { Comparisons } from './comparisons';
import { ComparisonsController } from './comparisons.controller';
import { FeaturesController } from './features.controller';
import { InvariantsController } from './invariants.controller';
import { Invariants } from './invariants';

/** Operators' views across the modules, the latest comparison of the two modes, and what this app offers. */
@Module({
  controllers: [InvariantsController, ComparisonsController, FeaturesController],
  providers: [Invariants, Comparisons],
  exports: [Invariants],
})
export class OperationsModule {}
