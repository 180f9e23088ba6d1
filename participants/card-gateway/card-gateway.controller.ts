import { Body, Controller, Get, Inject, Param } from '@nestjs/common';
import { IdempotencyKey, Performs, PerformsOperation } from '../common/requests';
import { CARD_GATEWAY_CONFIG, type CardGatewayConfig } from './card-gateway.config';
import { CardGatewayService } from './card-gateway.service';
import { OperationsStore } from './database/operations.store';
import type { GatewayResponse, OperationRecord } from './domain/operations';
import { AuthorizeBody, OnAuthorizationBody, VoidBody, voidTarget } from './requests';

/**
 * The gateway's API. Every operation takes the caller's Idempotency-Key header and answers 200
 * with its decision, approved or not: a decline is an answer, not an error. A request the
 * gateway cannot read is a 400 with a `reason`, and one it does not offer (a void by key, under
 * CARD_GATEWAY_VOIDS_BY_KEY=false) a 422 with a `reason`: nothing is written for either.
 */
@Controller('v1')
export class CardGatewayController {
  constructor(
    private readonly gateway: CardGatewayService,
    private readonly store: OperationsStore,
    @Inject(CARD_GATEWAY_CONFIG) private readonly config: CardGatewayConfig,
  ) {}

  @Performs('authorizations', 'authorize')
  authorize(@IdempotencyKey() key: string, @Body() body: AuthorizeBody): Promise<GatewayResponse> {
    return this.gateway.authorize(key, body);
  }

  @Performs('captures', 'capture')
  capture(@IdempotencyKey() key: string, @Body() body: OnAuthorizationBody): Promise<GatewayResponse> {
    return this.gateway.capture(key, body.authorizationId);
  }

  @Performs('voids', 'void')
  void(@IdempotencyKey() key: string, @Body() body: VoidBody): Promise<GatewayResponse> {
    return this.gateway.void(key, voidTarget(body, this.config));
  }

  @Performs('refunds', 'refund')
  refund(@IdempotencyKey() key: string, @Body() body: OnAuthorizationBody): Promise<GatewayResponse> {
    return this.gateway.refund(key, body.authorizationId);
  }

  /** Every operation filed under a merchant's reference: what a checker counts, where a 2 can show up. */
  @Get('references/:reference/operations')
  @PerformsOperation('listing')
  async filedUnder(
    @Param('reference') reference: string,
  ): Promise<{ reference: string; operations: OperationRecord[] }> {
    return { reference, operations: await this.store.filedUnder(reference) };
  }
}
