import type { OutgoingMessage } from '../../../infra/outbox';
import { stepCommand } from '../core/checkout-steps';
import type { NewCheckout } from '../database/checkouts.repository';
import type { SagaCommand } from './domain/saga';

/**
 * The message that carries one of the saga's commands to its participant, under the step's
 * idempotency key; a compensation's says why the checkout is undone.
 */
export const commandMessage = (checkout: NewCheckout, command: SagaCommand): OutgoingMessage =>
  stepCommand(checkout, command.executes, command.attempt, command.kind === 'compensation' ? command.reason : '');
