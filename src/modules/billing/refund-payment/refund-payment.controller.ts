import { ConflictException, Controller, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Transactional } from '@nestjs-cls/transactional';
import { AdminOnly } from '../../../infra/admin/admin.guard';
import { stepKey } from '../../checkout/contracts';
import { BILLING_STEPS } from '../contracts';
import { RefundPayment } from './refund-payment.use-case';

/** An operator gives a checkout's captured money back, once however often asked. */
@ApiTags('operations')
@AdminOnly()
@Controller('admin/payments')
export class RefundPaymentController {
  constructor(private readonly refundPayment: RefundPayment) {}

  @Post(':checkoutId/refund')
  @HttpCode(200)
  @Transactional()
  @ApiOkResponse({
    description: '`{checkoutId, status: "refunded"}`; the buyer then gets one email correcting the welcome',
  })
  @ApiConflictResponse({ description: 'Nothing captured to refund' })
  async refund(@Param('checkoutId', new ParseUUIDPipe()) checkoutId: string) {
    const result = await this.refundPayment.execute({
      checkoutId,
      idempotencyKey: stepKey(checkoutId, BILLING_STEPS.refundPayment),
    });
    if (result.outcome === 'not-refundable') throw new ConflictException(`Cannot refund: ${result.reason}`);
    return { checkoutId, status: 'refunded' };
  }
}
