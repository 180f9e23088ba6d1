import { type DynamicModule, type LogLevel, Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createParticipantApp } from '../common/app';
import { participantModule } from '../common/participant.module';
import { CARD_GATEWAY_CONFIG, type CardGatewayConfig } from './card-gateway.config';
import { CardGatewayController } from './card-gateway.controller';
import { CardGatewayService } from './card-gateway.service';
import { OperationsStore } from './database/operations.store';
import { FaultRule } from './lab/fault-rules';

/** The card gateway service: its API, its store, and its lab (faults over an admin API). */
@Module({})
export class CardGatewayModule {
  static forRoot(config: CardGatewayConfig): DynamicModule {
    const module = participantModule(CardGatewayModule, config, {
      controller: CardGatewayController,
      store: OperationsStore,
      service: CardGatewayService,
      makeService: (store, lab) =>
        new CardGatewayService(store, { take: (operation) => lab.takes('decline', operation) }),
      faultRule: FaultRule,
    });
    return { ...module, providers: [...module.providers!, { provide: CARD_GATEWAY_CONFIG, useValue: config }] };
  }
}

/** The service as a Nest app, not yet listening: its database must be migrated (migrateCardGateway). */
export function createCardGateway(config: CardGatewayConfig, logger?: LogLevel[]): Promise<NestExpressApplication> {
  return createParticipantApp(CardGatewayModule.forRoot(config), 'the gateway', logger);
}
