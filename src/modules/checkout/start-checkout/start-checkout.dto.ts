import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { CHECKOUT_MODES, type CheckoutMode } from '../checkout.config';
import { PAYMENT_METHODS, type PaymentMethod } from '../contracts';

export class StartCheckoutDto {
  @ApiPropertyOptional({
    format: 'uuid',
    example: '6f1c1d7e-3b5a-4a8e-9a51-2c8d2f0b7e10',
    description:
      "The buyer: a buyer's token says who they are (if given, it must be theirs); the operator must give it",
  })
  @IsOptional()
  @IsUUID('all', { message: 'userId must be a UUID' })
  userId?: string;

  @ApiProperty({ example: 'premium', description: 'A plan id from GET /plans' })
  @IsString()
  @Matches(/^[a-z0-9-]{1,64}$/, { message: 'planId must be 1 to 64 lowercase letters, digits or dashes' })
  planId!: string;

  @ApiProperty({ enum: PAYMENT_METHODS, example: 'pm_card_ok' })
  @IsIn(PAYMENT_METHODS, { message: `paymentMethod must be one of ${PAYMENT_METHODS.join(', ')}` })
  paymentMethod!: PaymentMethod;

  @ApiPropertyOptional({ enum: CHECKOUT_MODES, description: 'Overrides CHECKOUT_MODE for this checkout' })
  @IsOptional()
  @IsIn(CHECKOUT_MODES, { message: `mode must be one of ${CHECKOUT_MODES.join(', ')}` })
  mode?: CheckoutMode;
}

/** What the use case (StartCheckout) starts: the buyer is settled by then. */
export type StartCheckoutRequest = StartCheckoutDto & { userId: string };

export class CheckoutAccepted {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'PENDING' }) status!: 'PENDING';
  @ApiProperty({ enum: CHECKOUT_MODES, example: 'choreography' }) mode!: CheckoutMode;
  @ApiProperty({ example: '0b6f3c5e-2f1a-4c1b-8d8e-5a1f7b9c2d3e' }) correlationId!: string;
}
