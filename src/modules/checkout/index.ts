export { CheckoutModule } from './checkout.module';
export { CheckoutApi } from './checkout.api';
export type { StartCheckoutRequest } from './start-checkout/start-checkout.dto';
// The seam a coordinator of another engine takes the orchestrated one's place at (the bench's peers).
export type { CheckoutCoordinator } from './core/checkout-coordinator';
export type { CheckoutRow } from './database/checkouts.repository';
export { OrchestrationCoordinator } from './orchestration';
