import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ClsService } from 'nestjs-cls';
import { appConfig, type AppConfig } from '../../config/app.config';
import type { MessageContext } from '../context/message-context';
import { Hooks } from '../hooks/hooks';
import { Subscriptions } from '../outbox/consuming/subscriptions';
import { StepCatalog } from '../steps/step-catalog';
import { FaultsController } from './faults.controller';
import { Faults } from './faults';
import { faultsConfig } from './faults.config';
import { LabHooks } from './lab-hooks';

/**
 * The lab: fault rules (Faults, `/admin/faults`) and, when FAULT_INJECTION is on, the hooks that
 * carry them out in place of the transport's and the steps' own (the one seam, src/infra/hooks).
 */
@Global()
@Module({
  imports: [ConfigModule.forFeature(faultsConfig)],
  controllers: [FaultsController],
  providers: [
    Faults,
    {
      provide: Hooks,
      inject: [appConfig.KEY, Faults, ClsService, Subscriptions, StepCatalog],
      useFactory: (
        config: AppConfig,
        faults: Faults,
        cls: ClsService<MessageContext>,
        subscriptions: Subscriptions,
        steps: StepCatalog,
      ): Hooks => (config.faultInjection ? new LabHooks(faults, cls, subscriptions, steps) : new Hooks()),
    },
  ],
  exports: [Faults, Hooks],
})
export class FaultsModule {}
