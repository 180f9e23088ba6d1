import { Injectable } from '@nestjs/common';
import { OutboxPublisher } from '../../../infra/outbox';
import type { PaymentMethod } from '../contracts';
import { CHOREOGRAPHED, CheckoutRequested } from '../contracts';
import type { NewCheckout } from '../database/checkouts.repository';
import { Mode } from '../core/mode';

/** Choreography: announce the request, and let each module react to the one before it. */
@Injectable()
export class ChoreographyMode extends Mode {
  readonly name = 'choreography';

  constructor(private readonly outbox: OutboxPublisher) {
    super();
  }

  async start(checkout: NewCheckout): Promise<void> {
    await this.outbox.publish(
      CheckoutRequested,
      {
        checkoutId: checkout.id,
        userId: checkout.user_id,
        planId: checkout.plan_id,
        paymentMethod: checkout.payment_method as PaymentMethod,
      },
      { aggregateId: checkout.id, headers: CHOREOGRAPHED },
    );
  }
}
