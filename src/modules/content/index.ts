export { ContentModule } from './content.module';
export { ContentApi } from './content.api';
export { GrantAccess, type GrantOutcome } from './grant-access/grant-access.handler';
export { ActivateAccess, type ActivateOutcome } from './activate-access/activate-access.handler';
export { RevokeAccess, type RevokeOutcome } from './revoke-access/revoke-access.handler';
