import type { DynamicModule, Type } from '@nestjs/common';
import type { ParticipantConfig } from './config';
import { Lab } from './lab/lab';
import { LabModule, type LabSettings } from './lab/lab.module';

/** What a participant service is made of: its API, its store, its service, and its lab's rule class. */
export interface ParticipantParts<Store, Service> {
  controller: Type;
  store: new (databaseUrl: string) => Store;
  service: Type<Service>;
  /** The service over its store, taking its refusals from the lab (`lab.takes(refusal, ...)`). */
  makeService(store: Store, lab: Lab): Service;
  faultRule: LabSettings['faultRule'];
}

/** The dynamic module of a participant: its API and store, and its lab behind its admin token. */
export function participantModule<Store, Service>(
  module: Type,
  config: ParticipantConfig,
  parts: ParticipantParts<Store, Service>,
): DynamicModule {
  return {
    module,
    imports: [LabModule.forRoot({ adminToken: config.adminToken, faultRule: parts.faultRule })],
    controllers: [parts.controller],
    providers: [
      { provide: parts.store, useFactory: () => new parts.store(config.databaseUrl) },
      { provide: parts.service, inject: [parts.store, Lab], useFactory: parts.makeService },
    ],
  };
}
