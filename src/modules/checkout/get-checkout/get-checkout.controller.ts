import { Controller, Get, NotFoundException, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { SignedIn } from '../../../infra/auth/access';
import { type Caller, CurrentCaller, mayActFor } from '../../../infra/auth/caller';
import { CHECKOUT_MODES } from '../checkout.config';
import { CheckoutsRepository, type CheckoutView, toCheckoutView } from '../database/checkouts.repository';
import { COMPENSATION_STEPS, FORWARD_STEPS } from '../core/checkout-steps';
import { CHECKOUT_STATUSES } from '../domain/checkout';

export class CheckoutResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) userId!: string;
  @ApiProperty({ example: 'premium' }) planId!: string;
  @ApiProperty({ enum: CHECKOUT_MODES }) mode!: string;
  @ApiProperty({ enum: CHECKOUT_STATUSES, example: 'PENDING' }) status!: string;
  @ApiProperty({ enum: [...FORWARD_STEPS, ...COMPENSATION_STEPS], description: 'The step it is in, or ended in' })
  step!: string;
  @ApiProperty({ nullable: true, example: 'not-licensed' }) failureReason!: string | null;
  @ApiProperty() correlationId!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ format: 'date-time', nullable: true }) completedAt!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, description: 'When its captured money was refunded' })
  refundedAt!: string | null;
}

@ApiTags('checkouts')
@SignedIn()
@Controller('checkouts')
export class GetCheckoutController {
  constructor(private readonly checkouts: CheckoutsRepository) {}

  @Get(':id')
  @ApiOkResponse({ type: CheckoutResponse })
  @ApiBadRequestResponse({ description: 'The id is not a UUID' })
  @ApiNotFoundResponse({ description: 'No such checkout, or not yours' })
  async get(@Param('id', new ParseUUIDPipe()) id: string, @CurrentCaller() caller: Caller): Promise<CheckoutView> {
    const checkout = await this.checkouts.find(id);
    // Another buyer's checkout answers exactly as a missing one: no way to learn that it exists.
    if (!checkout || !mayActFor(caller, checkout.user_id)) throw new NotFoundException(`No checkout ${id}`);
    return toCheckoutView(checkout);
  }
}
