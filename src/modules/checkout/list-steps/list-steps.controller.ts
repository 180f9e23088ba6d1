import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../../../infra/auth/access';
import { CHECKOUT_STEPS, type CheckoutStepRow } from '../core/checkout-steps';
import type { StepClass } from '../domain/checkout';

class CompensationResponse {
  @ApiProperty({ example: 'billing.void-authorization' }) name!: string;
  @ApiProperty({ example: 'billing.void-authorization.v1', description: 'The command that asks for it' })
  command!: string;
  @ApiProperty({ example: 'billing.payment-voided.v1', description: 'The event that says it was done' }) done!: string;
}

class StepResponse {
  @ApiProperty({ example: 'billing.authorize-payment' }) name!: string;
  @ApiProperty({
    enum: ['verify', 'compensable', 'pivot', 'retriable'],
    description: 'What a refusal, a failure or silence means for it',
  })
  class!: StepClass;
  @ApiProperty({ example: 'billing.authorize-payment.v1', description: 'The command that asks for it' })
  command!: string;
  @ApiProperty({ example: 'billing.payment-authorized.v1', description: 'The event that says it was done' })
  done!: string;
  @ApiProperty({ type: CompensationResponse, nullable: true, description: 'What undoes it, if anything does' })
  compensation!: CompensationResponse | null;
}

/**
 * The checkout's steps, in order, with what undoes each: the table both coordination styles
 * read, for a client (the console) to draw a checkout without a list of its own. Public, as the
 * plans are: it says how a checkout goes, nothing about anyone's.
 */
@ApiTags('checkouts')
@Public()
@Controller('checkout-steps')
export class ListStepsController {
  @Get()
  @ApiOkResponse({ type: [StepResponse] })
  list(): StepResponse[] {
    return (CHECKOUT_STEPS as readonly CheckoutStepRow[]).map(({ name, class: kind, command, done, compensation }) => ({
      name,
      class: kind,
      command: command.contract.type,
      done: done.type,
      compensation: compensation
        ? { name: compensation.name, command: compensation.command.contract.type, done: compensation.done.type }
        : null,
    }));
  }
}
