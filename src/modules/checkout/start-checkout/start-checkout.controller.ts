import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiHeader,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CheckoutAccepted, StartCheckoutDto } from './start-checkout.dto';
import { StartCheckout } from './start-checkout.handler';

@ApiTags('checkouts')
@Controller('checkouts')
export class StartCheckoutController {
  constructor(private readonly startCheckout: StartCheckout) {}

  @Post()
  @HttpCode(202)
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: '1 to 255 visible characters: the same key with the same body gets the first answer again',
  })
  @ApiAcceptedResponse({ type: CheckoutAccepted, description: 'Started; follow it at the Location' })
  @ApiBadRequestResponse({ description: 'Invalid body or Idempotency-Key' })
  @ApiConflictResponse({ description: 'A request with the same Idempotency-Key is still in flight' })
  @ApiPayloadTooLargeResponse({ description: 'Body over the limit' })
  @ApiUnprocessableEntityResponse({ description: 'Unknown plan, or the Idempotency-Key was used with another body' })
  async start(
    @Body() body: StartCheckoutDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CheckoutAccepted> {
    const started = await this.startCheckout.execute(body, idempotencyKey);
    response.setHeader('Location', `/checkouts/${started.body.id}`);
    if (started.replayed) response.setHeader('Idempotent-Replayed', 'true');
    return started.body;
  }
}
