import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../infra/database/database.module';
import { IdentityModule } from '../identity';
import { ActivateAccessCommandHandler } from './activate-access/activate-access.command-handler';
import { ActivateAccess } from './activate-access/activate-access.use-case';
import { ActivateAccessReaction } from './activate-access/activate-access.reaction';
import { ContentApi } from './content.api';
import { EntitlementsRepository } from './database/entitlements.repository';
import { PlanLicensesRepository } from './database/plan-licenses.repository';
import { CreateContentSchema1795970000300 } from './database/migrations/1795970000300-create-content-schema';
import { CreateContentTables1795970002300 } from './database/migrations/1795970002300-create-content-tables';
import { AddProvisionalEntitlements1795970005300 } from './database/migrations/1795970005300-add-provisional-entitlements';
import { GrantAccessCommandHandler } from './grant-access/grant-access.command-handler';
import { GrantAccess } from './grant-access/grant-access.use-case';
import { GrantAccessReaction } from './grant-access/grant-access.reaction';
import { ReadAccessController } from './read-access/read-access.controller';
import { RevokeAccessCommandHandler } from './revoke-access/revoke-access.command-handler';
import { RevokeAccess } from './revoke-access/revoke-access.use-case';
import { RevokeAccessReaction } from './revoke-access/revoke-access.reaction';

/** What each plan lets its buyers use, and where it may be sold. */
@Module({
  imports: [
    IdentityModule,
    DatabaseModule.forFeature({
      migrations: [
        CreateContentSchema1795970000300,
        CreateContentTables1795970002300,
        AddProvisionalEntitlements1795970005300,
      ],
    }),
  ],
  controllers: [ReadAccessController],
  providers: [
    ContentApi,
    PlanLicensesRepository,
    EntitlementsRepository,
    GrantAccess,
    ActivateAccess,
    RevokeAccess,
    GrantAccessReaction,
    ActivateAccessReaction,
    RevokeAccessReaction,
    GrantAccessCommandHandler,
    ActivateAccessCommandHandler,
    RevokeAccessCommandHandler,
  ],
  exports: [ContentApi],
})
export class ContentModule {}
