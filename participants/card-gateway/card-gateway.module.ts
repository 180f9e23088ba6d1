import { type DynamicModule, type LogLevel, Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createParticipantApp } from '../common/app';
import { Lab } from '../common/lab/lab';
import { LabModule } from '../common/lab/lab.module';
import { CARD_GATEWAY_CONFIG, type CardGatewayConfig } from './card-gateway.config';
import { CardGatewayController } from './card-gateway.controller';
import { CardGatewayService } from './card-gateway.service';
import { OperationsStore } from './database/operations.store';
import { FaultRule } from './lab/fault-rules';

/** The card gateway service: its API, its store, and its lab (faults over an admin API). */
@Module({})
export class CardGatewayModule {
  static forRoot(config: CardGatewayConfig): DynamicModule {
    return {
      module: CardGatewayModule,
      imports: [LabModule.forRoot({ adminToken: config.adminToken, faultRule: FaultRule })],
      controllers: [CardGatewayController],
      providers: [
        { provide: CARD_GATEWAY_CONFIG, useValue: config },
        { provide: OperationsStore, useFactory: () => new OperationsStore(config.databaseUrl) },
        {
          provide: CardGatewayService,
          inject: [OperationsStore, Lab],
          useFactory: (store: OperationsStore, lab: Lab) =>
            new CardGatewayService(store, { take: (operation) => lab.takes('decline', operation) }),
        },
      ],
    };
  }
}

/** The service as a Nest app, not yet listening: its database must be migrated (migrateCardGateway). */
export function createCardGateway(config: CardGatewayConfig, logger?: LogLevel[]): Promise<NestExpressApplication> {
  return createParticipantApp(CardGatewayModule.forRoot(config), 'the gateway', logger);
}
