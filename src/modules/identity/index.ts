export { IdentityModule } from './identity.module';
export { IdentityApi, type UserView } from './identity.api';
export type { BuyerVerdict } from './domain/buyer';
