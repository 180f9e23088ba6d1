import { type DynamicModule, Module } from '@nestjs/common';
import { BillingModule } from '../../src/modules/billing';
import { CheckoutModule } from '../../src/modules/checkout';
import { ContentModule } from '../../src/modules/content';
import { IdentityModule } from '../../src/modules/identity';
import { NotificationsModule } from '../../src/modules/notifications';
import { DbosCheckouts } from './dbos-checkout';
import { GraphileCheckouts } from './graphile-checkout';
import { PeerEngine, type PeerEngineName } from './peer-engine';
import { PeerSteps } from './peer-steps';

/** A peer's checkout: the participants' operations (from their modules) and the engine that chains them. */
@Module({})
export class PeerModule {
  static for(engine: PeerEngineName): DynamicModule {
    const implementation = engine === 'dbos' ? DbosCheckouts : GraphileCheckouts;
    return {
      module: PeerModule,
      imports: [IdentityModule, BillingModule, ContentModule, NotificationsModule, CheckoutModule],
      providers: [PeerSteps, implementation, { provide: PeerEngine, useExisting: implementation }],
      exports: [PeerEngine],
    };
  }
}
