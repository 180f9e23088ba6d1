import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../infra/database/database.module';
import { CreateNotificationsSchema1795970000400 } from './database/migrations/1795970000400-create-notifications-schema';

@Module({
  imports: [DatabaseModule.forFeature({ migrations: [CreateNotificationsSchema1795970000400] })],
})
export class NotificationsModule {}
