import { Injectable, Logger } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { PaymentRefunded, type PaymentRefundedPayload } from '../../billing/contracts';
import { CheckoutsRepository } from '../database/checkouts.repository';

/**
 * A refund, in either mode, is recorded on the checkout's read model: it stays COMPLETED (the sale
 * happened) and says since when its money is back with the buyer.
 */
@Injectable()
export class RecordRefundReaction {
  private readonly logger = new Logger('RecordRefund');

  constructor(private readonly checkouts: CheckoutsRepository) {}

  @OnEvent(PaymentRefunded.type)
  @Consumer('checkout.record-refund')
  async onPaymentRefunded({ checkoutId }: PaymentRefundedPayload): Promise<void> {
    if (!(await this.checkouts.markRefunded(checkoutId))) {
      this.logger.warn(`A refund of unknown checkout ${checkoutId} was ignored`);
    }
  }
}
