import { type DynamicModule, type LogLevel, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { CARD_GATEWAY_CONFIG, type CardGatewayConfig } from './card-gateway.config';
import { CardGatewayController } from './card-gateway.controller';
import { CardGatewayService } from './card-gateway.service';
import { OperationsStore } from './database/operations.store';
import { requestValidation } from './requests';

/** The card gateway service: its API and its store. */
@Module({})
export class CardGatewayModule {
  static forRoot(config: CardGatewayConfig): DynamicModule {
    return {
      module: CardGatewayModule,
      controllers: [CardGatewayController],
      providers: [
        { provide: CARD_GATEWAY_CONFIG, useValue: config },
        { provide: OperationsStore, useFactory: () => new OperationsStore(config.databaseUrl) },
        {
          provide: CardGatewayService,
          inject: [OperationsStore],
          useFactory: (store: OperationsStore) => new CardGatewayService(store),
        },
      ],
    };
  }
}

/** The service as a Nest app, not yet listening: its database must be migrated (migrateCardGateway). */
export async function createCardGateway(
  config: CardGatewayConfig,
  logger: LogLevel[] = ['log', 'warn', 'error'],
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(CardGatewayModule.forRoot(config), { logger });
  app.useGlobalPipes(requestValidation);
  return app;
}
