export { IdentityModule } from './identity.module';
export { IdentityApi, type UserView } from './identity.api';
