import 'reflect-metadata';
import { runParticipant } from '../common/main';
import { readCardGatewayConfig } from './card-gateway.config';
import { createCardGateway } from './card-gateway.module';
import { migrateCardGateway } from './database/migrate';

runParticipant({
  name: 'CardGateway',
  readConfig: readCardGatewayConfig,
  migrate: migrateCardGateway,
  create: createCardGateway,
});
