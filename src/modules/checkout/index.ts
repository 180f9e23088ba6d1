export { CheckoutModule } from './checkout.module';
export { CheckoutApi } from './checkout.api';
export type { StartCheckoutRequest } from './start-checkout/start-checkout.dto';
// The seam another engine's mode takes the orchestrated one's place at (the bench's peers).
export { Mode } from './core/mode';
export type { CheckoutRow, NewCheckout } from './database/checkouts.repository';
export { OrchestrationMode } from './orchestration';
