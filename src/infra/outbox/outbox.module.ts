import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { CreateOutboxSchema1795970000000 } from './database/migrations/1795970000000-create-outbox-schema';

@Module({
  imports: [DatabaseModule.forFeature({ migrations: [CreateOutboxSchema1795970000000] })],
})
export class OutboxModule {}
