import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../infra/database/database.module';
import { IdentityModule } from '../identity';
import { ContentApi } from './content.api';
import { ContentCommands } from './content.commands';
import { EntitlementsRepository } from './database/entitlements.repository';
import { CreateContentSchema1795970000300 } from './database/migrations/1795970000300-create-content-schema';
import { CreateContentTables1795970002300 } from './database/migrations/1795970002300-create-content-tables';
import { GrantAccess } from './grant-access/grant-access.handler';
import { GrantAccessReaction } from './grant-access/grant-access.reaction';
import { Licensing } from './licensing/licensing';
import { RevokeAccess } from './revoke-access/revoke-access.handler';
import { RevokeAccessReaction } from './revoke-access/revoke-access.reaction';

/** What each plan lets its buyers use, and where it may be sold. */
@Module({
  imports: [
    IdentityModule,
    DatabaseModule.forFeature({ migrations: [CreateContentSchema1795970000300, CreateContentTables1795970002300] }),
  ],
  providers: [
    ContentApi,
    Licensing,
    EntitlementsRepository,
    GrantAccess,
    RevokeAccess,
    GrantAccessReaction,
    RevokeAccessReaction,
    ContentCommands,
  ],
  exports: [ContentApi, GrantAccess, RevokeAccess],
})
export class ContentModule {}
