import 'reflect-metadata';
import { runParticipant } from '../common/main';
import { migrateFiscalAuthority } from './database/migrate';
import { readFiscalAuthorityConfig } from './fiscal-authority.config';
import { createFiscalAuthority } from './fiscal-authority.module';

runParticipant({
  name: 'FiscalAuthority',
  readConfig: readFiscalAuthorityConfig,
  migrate: migrateFiscalAuthority,
  create: createFiscalAuthority,
});
