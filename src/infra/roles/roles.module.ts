import { Global, Module } from '@nestjs/common';
import { AppRoles } from './app-roles';

@Global()
@Module({ providers: [AppRoles], exports: [AppRoles] })
export class RolesModule {}
