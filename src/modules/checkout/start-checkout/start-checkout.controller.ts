import {
  BadRequestException,
  Body,
  Controller,
  ForbiddenException,
  Headers,
  HttpCode,
  Post,
  Res,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiHeader,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { SignedIn } from '../../../infra/auth/access';
import { type Caller, CurrentCaller } from '../../../infra/auth/caller';
import { RateLimited } from '../../../infra/auth/rate-limit';
import { CheckoutAccepted, StartCheckoutDto } from './start-checkout.dto';
import { type IdempotencyKey, StartCheckout } from './start-checkout.use-case';

@ApiTags('checkouts')
@Controller('checkouts')
export class StartCheckoutController {
  constructor(private readonly startCheckout: StartCheckout) {}

  @Post()
  @HttpCode(202)
  @SignedIn()
  @RateLimited('checkouts')
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      "1 to 255 visible characters: the same caller's same key with the same body gets the first response again, for CHECKOUT_IDEMPOTENCY_TTL_HOURS",
  })
  @ApiAcceptedResponse({ type: CheckoutAccepted, description: 'Started; follow it at the Location' })
  @ApiBadRequestResponse({ description: 'Invalid body or Idempotency-Key' })
  @ApiForbiddenResponse({ description: "A buyer's token with another buyer's userId" })
  @ApiConflictResponse({ description: 'A request with the same Idempotency-Key is still in flight' })
  @ApiPayloadTooLargeResponse({ description: 'Body over the limit' })
  @ApiUnprocessableEntityResponse({ description: 'Unknown plan, or the Idempotency-Key was used with another body' })
  async start(
    @Body() body: StartCheckoutDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CheckoutAccepted> {
    const userId = buyerOf(body, caller);
    const key: IdempotencyKey | undefined =
      idempotencyKey === undefined
        ? undefined
        : { key: idempotencyKey, scope: caller.kind === 'buyer' ? `buyer:${caller.userId}` : 'operator' };
    const started = await this.startCheckout.execute({ ...body, userId }, key);
    response.setHeader('Location', `/checkouts/${started.body.id}`);
    if (started.replayed) response.setHeader('Idempotent-Replayed', 'true');
    return started.body;
  }
}

/** A buyer buys for themself; the operator says for whom. */
function buyerOf(body: StartCheckoutDto, caller: Caller): string {
  if (caller.kind === 'buyer') {
    if (body.userId !== undefined && body.userId.toLowerCase() !== caller.userId) {
      throw new ForbiddenException('A buyer starts checkouts for themself only: leave userId out, or give your own');
    }
    return caller.userId;
  }
  if (body.userId === undefined) {
    throw new BadRequestException({
      message: 'Validation failed',
      details: [{ field: 'userId', problems: ['userId is required when the operator starts a checkout'] }],
    });
  }
  return body.userId;
}
