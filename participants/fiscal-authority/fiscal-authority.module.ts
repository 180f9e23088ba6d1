import { type DynamicModule, type LogLevel, Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createParticipantApp } from '../common/app';
import { participantModule } from '../common/participant.module';
import { DocumentsStore } from './database/documents.store';
import { FiscalAuthorityController } from './fiscal-authority.controller';
import type { FiscalAuthorityConfig } from './fiscal-authority.config';
import { FiscalAuthorityService } from './fiscal-authority.service';
import { FaultRule } from './lab/fault-rules';

/** The fiscal authority service: its API, its store, and its lab (faults over an admin API). */
@Module({})
export class FiscalAuthorityModule {
  static forRoot(config: FiscalAuthorityConfig): DynamicModule {
    return participantModule(FiscalAuthorityModule, config, {
      controller: FiscalAuthorityController,
      store: DocumentsStore,
      service: FiscalAuthorityService,
      makeService: (store, lab) =>
        new FiscalAuthorityService(store, config.cancelWindowSeconds, {
          take: (operation) => lab.takes('reject', operation),
        }),
      faultRule: FaultRule,
    });
  }
}

/** The service as a Nest app, not yet listening: its database must be migrated (migrateFiscalAuthority). */
export function createFiscalAuthority(
  config: FiscalAuthorityConfig,
  logger?: LogLevel[],
): Promise<NestExpressApplication> {
  return createParticipantApp(FiscalAuthorityModule.forRoot(config), 'the fiscal authority', logger);
}
