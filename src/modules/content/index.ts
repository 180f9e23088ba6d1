export { ContentModule } from './content.module';
export { ContentApi } from './content.api';
export type { ActivateOutcome } from './activate-access/activate-access.use-case';
export type { GrantOutcome } from './grant-access/grant-access.use-case';
export type { RevokeOutcome } from './revoke-access/revoke-access.use-case';
