export { BillingModule } from './billing.module';
export { BillingApi } from './billing.api';
export type { Plan } from './plans/plans';
export { AuthorizePayment, type AuthorizeOutcome } from './authorize-payment/authorize-payment.handler';
export { CapturePayment, type CaptureOutcome } from './capture-payment/capture-payment.handler';
export { VoidAuthorization, type VoidOutcome } from './void-authorization/void-authorization.handler';
export { RefundPayment } from './refund-payment/refund-payment.handler';
