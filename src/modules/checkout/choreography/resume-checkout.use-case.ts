import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../../../infra/context/message-context';
import { OutboxPublisher } from '../../../infra/outbox';
import { CHOREOGRAPHED, CheckoutResumed } from '../contracts';
import { CheckoutsRepository } from '../database/checkouts.repository';
import type { CheckoutStep } from '../domain/checkout';
import { CheckoutProgressRecorder } from '../core/checkout-progress';
import { stepCommand } from '../core/checkout-steps';

export interface ResumeOutcome {
  id: string;
  status: 'PENDING';
  step: CheckoutStep;
  resent: string;
}

/**
 * A person finishes what a choreography cannot: a choreographed checkout that stalled (a
 * participant swallowed a message, or did its work and never said so) is resumed by asking that
 * participant again, with the step's command under the step's idempotency key: a new message, so
 * the inbox does not drop it, and the same key, so a step that did happen is not done twice but
 * only answered. The answer is the event the choreography was waiting for, and it moves on from
 * there. Events are owned by their emitters, so the checkout asks (a command) rather than
 * re-announcing another module's fact. Orchestrated checkouts have POST /admin/sagas/:id/retry.
 */
@Injectable()
export class ResumeCheckout {
  constructor(
    private readonly checkouts: CheckoutsRepository,
    private readonly progress: CheckoutProgressRecorder,
    private readonly outbox: OutboxPublisher,
    private readonly cls: ClsService<MessageContext>,
  ) {}

  /** Runs in the caller's transaction. */
  async execute(id: string): Promise<ResumeOutcome> {
    const checkout = await this.checkouts.lock(id);
    if (!checkout) throw new NotFoundException(`No checkout ${id}`);
    if (checkout.mode !== 'choreography') {
      throw new ConflictException({
        message: `Checkout ${id} is orchestrated: its saga resumes with POST /admin/sagas/${id}/retry`,
        reason: 'not-choreographed',
      });
    }
    if (checkout.status !== 'INTERVENTION') {
      throw new ConflictException({
        message: `Checkout ${id} is ${checkout.status}: only a checkout in INTERVENTION is resumed`,
        reason: 'not-in-intervention',
        checkoutStatus: checkout.status,
      });
    }
    const stalledBecause = checkout.failure_reason ?? 'stalled';
    const command = stepCommand(checkout, checkout.step, 1, 'undone after an operator resumed the checkout');
    // What the resumption causes belongs to the checkout's process, not to this request.
    this.cls.set('correlationId', checkout.correlation_id);
    this.cls.set('headers', CHOREOGRAPHED);
    const on = { aggregateId: id };
    await this.outbox.publish(
      CheckoutResumed,
      { checkoutId: id, step: checkout.step, resent: command.contract.type, stalledBecause },
      on,
    );
    await this.outbox.publish(command.contract, command.payload, on);
    await this.progress.record(id, { kind: 'resumed' });
    return { id, status: 'PENDING', step: checkout.step, resent: command.contract.type };
  }
}
