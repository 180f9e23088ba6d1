import { Module, type OnModuleInit } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { DatabaseModule } from '../../infra/database/database.module';
import { outboxConfig } from '../../infra/outbox';
import { StepCatalog } from '../../infra/steps';
import { BillingModule } from '../billing';
import { ContentModule } from '../content';
import { CheckoutApi } from './checkout.api';
import { checkoutConfig } from './checkout.config';
import { CheckoutMetrics } from './checkout.metrics';
import { CheckoutTimelineController } from './checkout-timeline/checkout-timeline.controller';
import { CHOREOGRAPHY, ChoreographyMode } from './choreography';
import { MODES, type Mode } from './core/mode';
import { CheckoutProgressRecorder } from './core/checkout-progress';
import { COMPENSATION_STEPS, FORWARD_STEPS } from './core/checkout-steps';
import { CheckoutsRepository } from './database/checkouts.repository';
import { IdempotencyKeysRepository } from './database/idempotency-keys.repository';
import { OpenCheckoutsQuery } from './database/open-checkouts.query';
import { CreateCheckoutSchema1795970000500 } from './database/migrations/1795970000500-create-checkout-schema';
import { CreateCheckoutTables1795970002500 } from './database/migrations/1795970002500-create-checkout-tables';
import { CreateSagaTables1795970003500 } from './database/migrations/1795970003500-create-saga-tables';
import { AddSagaBackoff1795970003600 } from './database/migrations/1795970003600-add-saga-backoff';
import { ScopeIdempotencyKeys1795970003700 } from './database/migrations/1795970003700-scope-idempotency-keys';
import { AddSagaTraceContext1795970003800 } from './database/migrations/1795970003800-add-saga-trace-context';
import { AddCheckoutRefunds1795970004500 } from './database/migrations/1795970004500-add-checkout-refunds';
import { IndexCheckoutsByBuyer1795970006500 } from './database/migrations/1795970006500-index-checkouts-by-buyer';
import { AddSagaGeneration1795970009700 } from './database/migrations/1795970009700-add-saga-generation';
import { RefuseStaleSagaWrites1795970010100 } from './database/migrations/1795970010100-refuse-stale-saga-writes';
import { GetCheckoutController } from './get-checkout/get-checkout.controller';
import { ListCheckoutsController } from './list-checkouts/list-checkouts.controller';
import { ListPlansController } from './list-plans/list-plans.controller';
import { ListStepsController } from './list-steps/list-steps.controller';
import { ORCHESTRATION, OrchestrationMode, sagaConfig } from './orchestration';
import { RecordRefundReaction } from './record-refund/record-refund.reaction';
import { ExpiredIdempotencyKeys } from './start-checkout/expired-idempotency-keys';
import { StartCheckoutController } from './start-checkout/start-checkout.controller';
import { StartCheckout } from './start-checkout/start-checkout.use-case';

/** The checkout process: its REST entry point, its status read model and its coordination. */
@Module({
  imports: [
    ConfigModule.forFeature(checkoutConfig),
    ConfigModule.forFeature(sagaConfig),
    ConfigModule.forFeature(outboxConfig),
    BillingModule,
    ContentModule,
    DatabaseModule.forFeature({
      migrations: [
        CreateCheckoutSchema1795970000500,
        CreateCheckoutTables1795970002500,
        CreateSagaTables1795970003500,
        AddSagaBackoff1795970003600,
        ScopeIdempotencyKeys1795970003700,
        AddSagaTraceContext1795970003800,
        AddCheckoutRefunds1795970004500,
        IndexCheckoutsByBuyer1795970006500,
        AddSagaGeneration1795970009700,
        RefuseStaleSagaWrites1795970010100,
      ],
    }),
  ],
  controllers: [
    StartCheckoutController,
    GetCheckoutController,
    ListCheckoutsController,
    CheckoutTimelineController,
    ListPlansController,
    ListStepsController,
    ...CHOREOGRAPHY.controllers,
    ...ORCHESTRATION.controllers,
  ],
  providers: [
    CheckoutApi,
    CheckoutsRepository,
    IdempotencyKeysRepository,
    OpenCheckoutsQuery,
    CheckoutMetrics,
    CheckoutProgressRecorder,
    StartCheckout,
    ExpiredIdempotencyKeys,
    RecordRefundReaction,
    ...CHOREOGRAPHY.providers,
    ...ORCHESTRATION.providers,
    {
      provide: MODES,
      inject: [ChoreographyMode, OrchestrationMode],
      useFactory: (...modes: Mode[]) => modes,
    },
  ],
  exports: [CheckoutApi],
})
export class CheckoutModule implements OnModuleInit {
  constructor(private readonly steps: StepCatalog) {}

  /** The checkout's steps and compensations, the same in both modes. */
  onModuleInit(): void {
    this.steps.declare(FORWARD_STEPS, COMPENSATION_STEPS);
  }
}
