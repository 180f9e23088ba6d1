export { BillingModule } from './billing.module';
export { BillingApi } from './billing.api';
export type { Plan } from './database/plans.repository';
