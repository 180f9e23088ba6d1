export { IdentityModule } from './identity.module';
export { IdentityApi, type UserView } from './identity.api';
export { VerifyUser } from './verify-user/verify-user.handler';
export type { BuyerVerdict } from './domain/buyer';
