import { Injectable } from '@nestjs/common';
import type { PaymentPayload } from '../contracts';
import { PaymentsRepository } from '../database/payments.repository';
import { decideCapture } from '../domain/payment';
import { CardGateway } from '../gateway/card-gateway';
import { toPaymentPayload } from '../payment.mapper';

export interface CapturePaymentInput {
  checkoutId: string;
  idempotencyKey: string;
}

export type CaptureOutcome =
  | { outcome: 'captured'; payment: PaymentPayload; isNew: boolean }
  | { outcome: 'declined'; reason: string; isNew: boolean };

/**
 * Step 4, the pivot: take the money. Everything that could still say no has said yes; after
 * this, the checkout only goes forward. A declined capture leaves the authorization to be voided.
 */
@Injectable()
export class CapturePayment {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly gateway: CardGateway,
  ) {}

  async execute({ checkoutId, idempotencyKey }: CapturePaymentInput): Promise<CaptureOutcome> {
    const payment = await this.payments.lockByCheckout(checkoutId);
    const decision = decideCapture(payment);
    if (decision.kind === 'already-captured') {
      return { outcome: 'captured', payment: toPaymentPayload(payment!), isNew: false };
    }
    if (decision.kind === 'not-capturable') {
      return { outcome: 'declined', reason: payment ? `payment is ${payment.status}` : 'not-authorized', isNew: false };
    }
    const response = await this.gateway.capture(idempotencyKey, payment!.gateway_authorization_id!);
    if (!response.approved) {
      await this.payments.update(payment!, { declineReason: response.reason });
      return { outcome: 'declined', reason: response.reason, isNew: true };
    }
    return {
      outcome: 'captured',
      payment: toPaymentPayload(await this.payments.update(payment!, { status: 'captured' })),
      isNew: true,
    };
  }
}
