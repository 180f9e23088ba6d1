export { CheckoutModule } from './checkout.module';
export { checkoutConfig } from './checkout.config';
