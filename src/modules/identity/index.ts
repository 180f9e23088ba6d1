export { IdentityModule } from './identity.module';
