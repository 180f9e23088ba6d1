export { BillingModule } from './billing.module';
export { BillingApi } from './billing.api';
export type { FiledInvoices } from './domain/filed-invoices';
export type { FiledMoney } from './domain/filed-money';
export type { Plan } from './database/plans.repository';
export type { AuthorizeOutcome } from './authorize-payment/authorize-payment.use-case';
export type { CaptureOutcome } from './capture-payment/capture-payment.use-case';
export type { IssueOutcome } from './issue-invoice/issue-invoice.use-case';
export type { VoidOutcome } from './void-authorization/void-authorization.use-case';
