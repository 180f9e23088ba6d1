export { CheckoutModule } from './checkout.module';
export { checkoutConfig } from './checkout.config';
export { sagaConfig } from './orchestration/saga.config';
