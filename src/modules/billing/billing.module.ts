import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../infra/database/database.module';
import { CreateBillingSchema1795970000200 } from './database/migrations/1795970000200-create-billing-schema';

@Module({
  imports: [DatabaseModule.forFeature({ migrations: [CreateBillingSchema1795970000200] })],
})
export class BillingModule {}
