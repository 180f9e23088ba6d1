import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../infra/database/database.module';
import { CreateCheckoutSchema1795970000500 } from './database/migrations/1795970000500-create-checkout-schema';

@Module({
  imports: [DatabaseModule.forFeature({ migrations: [CreateCheckoutSchema1795970000500] })],
})
export class CheckoutModule {}
