import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../infra/database/database.module';
import { BillingModule } from '../billing';
import { ContentModule } from '../content';
import { CheckoutMetrics } from './checkout.metrics';
import { CheckoutTimelineController } from './checkout-timeline/checkout-timeline.controller';
import { CheckoutsRepository } from './database/checkouts.repository';
import { CreateCheckoutSchema1795970000500 } from './database/migrations/1795970000500-create-checkout-schema';
import { CreateCheckoutTables1795970002500 } from './database/migrations/1795970002500-create-checkout-tables';
import { GetCheckoutController } from './get-checkout/get-checkout.controller';
import { ListCheckoutsController } from './list-checkouts/list-checkouts.controller';
import { ListPlansController } from './list-plans/list-plans.controller';
import { CHECKOUT_COORDINATORS, type CheckoutCoordinator } from './start-checkout/checkout-coordinator';
import { ChoreographyCoordinator } from './start-checkout/choreography.coordinator';
import { StartCheckoutController } from './start-checkout/start-checkout.controller';
import { StartCheckout } from './start-checkout/start-checkout.handler';
import { CheckoutProgressRecorder } from './track-progress/checkout-progress';
import { TrackProgressReaction } from './track-progress/track-progress.reaction';

/** The checkout process: its REST entry point, its status read model and its coordination. */
@Module({
  imports: [
    BillingModule,
    ContentModule,
    DatabaseModule.forFeature({ migrations: [CreateCheckoutSchema1795970000500, CreateCheckoutTables1795970002500] }),
  ],
  controllers: [
    StartCheckoutController,
    GetCheckoutController,
    ListCheckoutsController,
    CheckoutTimelineController,
    ListPlansController,
  ],
  providers: [
    CheckoutsRepository,
    CheckoutMetrics,
    CheckoutProgressRecorder,
    StartCheckout,
    ChoreographyCoordinator,
    {
      provide: CHECKOUT_COORDINATORS,
      inject: [ChoreographyCoordinator],
      useFactory: (...coordinators: CheckoutCoordinator[]) => coordinators,
    },
    TrackProgressReaction,
  ],
})
export class CheckoutModule {}
