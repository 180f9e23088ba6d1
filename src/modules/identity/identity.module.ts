import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../infra/database/database.module';
import { CreateIdentitySchema1795970000100 } from './database/migrations/1795970000100-create-identity-schema';

@Module({
  imports: [DatabaseModule.forFeature({ migrations: [CreateIdentitySchema1795970000100] })],
})
export class IdentityModule {}
