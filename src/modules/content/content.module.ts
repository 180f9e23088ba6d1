import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../infra/database/database.module';
import { CreateContentSchema1795970000300 } from './database/migrations/1795970000300-create-content-schema';

@Module({
  imports: [DatabaseModule.forFeature({ migrations: [CreateContentSchema1795970000300] })],
})
export class ContentModule {}
