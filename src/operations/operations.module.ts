import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { BillingModule } from '../modules/billing';
import { Comparisons } from './comparisons';
import { ComparisonsController } from './comparisons.controller';
import { FeaturesController } from './features.controller';
import { InvariantsController } from './invariants.controller';
import { ParticipantsController } from './participants.controller';
import { operationsConfig } from './operations.config';
import { Invariants } from './invariants';

/**
 * Operators' views across the modules, the latest comparison of the two modes, and what this app
 * offers. Billing's door answers the money the card gateway service filed under a checkout.
 */
@Module({
  imports: [ConfigModule.forFeature(operationsConfig), BillingModule],
  controllers: [InvariantsController, ComparisonsController, FeaturesController, ParticipantsController],
  providers: [Invariants, Comparisons],
  exports: [Invariants],
})
export class OperationsModule {}
