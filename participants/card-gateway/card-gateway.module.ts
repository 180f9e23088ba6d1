import { type DynamicModule, type LogLevel, Module } from '@nestjs/common';
import { APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { CARD_GATEWAY_CONFIG, type CardGatewayConfig } from './card-gateway.config';
import { CardGatewayController } from './card-gateway.controller';
import { CardGatewayService } from './card-gateway.service';
import { OperationsStore } from './database/operations.store';
import { AdminGuard, LabController, LabInterceptor } from './lab/lab.controller';
import { Lab } from './lab/lab';
import { requestValidation } from './requests';

/** The card gateway service: its API, its store, and its lab (faults over an admin API). */
@Module({})
export class CardGatewayModule {
  static forRoot(config: CardGatewayConfig): DynamicModule {
    return {
      module: CardGatewayModule,
      controllers: [CardGatewayController, LabController],
      providers: [
        { provide: CARD_GATEWAY_CONFIG, useValue: config },
        { provide: OperationsStore, useFactory: () => new OperationsStore(config.databaseUrl) },
        Lab,
        {
          provide: CardGatewayService,
          inject: [OperationsStore, Lab],
          useFactory: (store: OperationsStore, lab: Lab) => new CardGatewayService(store, lab),
        },
        AdminGuard,
        { provide: APP_INTERCEPTOR, useClass: LabInterceptor },
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
  app.use(app.get(Lab).gate);
  return app;
}
