import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  UnprocessableEntityException,
} from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';
import { ClsService } from 'nestjs-cls';
import { createHash, randomUUID } from 'node:crypto';
import { QueryFailedError } from 'typeorm';
import type { MessageContext } from '../../../infra/context/message-context';
import { together } from '../../../infra/database/one-write';
import { BillingApi } from '../../billing';
import { checkoutConfig, type CheckoutConfig } from '../checkout.config';
import { CheckoutsRepository } from '../database/checkouts.repository';
import { IdempotencyKeysRepository } from '../database/idempotency-keys.repository';
import { MODES, type Mode } from '../core/mode';
import { FORWARD_STEPS } from '../core/checkout-steps';
import type { CheckoutAccepted, StartCheckoutRequest } from './start-checkout.dto';

/** Visible ASCII, 1 to 255 characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const LOCK_NOT_AVAILABLE = '55P03';

/** An Idempotency-Key and whose it is: a key belongs to the caller who sent it. */
export interface IdempotencyKey {
  key: string;
  /** `buyer:<user id>` or `operator`: the same key from two callers names two requests. */
  scope: string;
}

export interface StartedCheckout {
  body: CheckoutAccepted;
  /** True when this is the first response to the same Idempotency-Key, given again. */
  replayed: boolean;
}

/**
 * Writes a new checkout (PENDING) and sets it going, in one transaction. With an
 * Idempotency-Key, the first response is stored in that transaction too: a repeat of the same
 * request by the same caller gets it again and starts nothing; a request racing it waits for it
 * and then gets it; the same key with another request is refused. A key expires after
 * CHECKOUT_IDEMPOTENCY_TTL_HOURS, and is then as good as new.
 */
@Injectable()
export class StartCheckout {
  constructor(
    private readonly idempotencyKeys: IdempotencyKeysRepository,
    private readonly cls: ClsService<MessageContext>,
    private readonly checkouts: CheckoutsRepository,
    private readonly billing: BillingApi,
    @Inject(MODES) private readonly modes: Mode[],
    @Inject(checkoutConfig.KEY) private readonly config: CheckoutConfig,
  ) {}

  @Transactional()
  async execute(request: StartCheckoutRequest, idempotencyKey?: IdempotencyKey): Promise<StartedCheckout> {
    const requestHash = hashOf(request);
    // Asked for together (one round trip): the plan is not needed for a repeated request.
    const [previous, plan] = await together([
      idempotencyKey && this.previousResponse(idempotencyKey, requestHash),
      this.billing.findPlan(request.planId),
    ]).catch(refuseLockNotAvailable);
    if (previous) return { body: previous, replayed: true };
    if (!plan) throw new UnprocessableEntityException(`There is no plan ${request.planId}; see GET /plans`);
    const mode = request.mode ?? this.config.defaultMode;
    const chosen = this.modes.find((m) => m.name === mode);
    if (!chosen) throw new UnprocessableEntityException(`Mode ${mode} is not available`);

    const checkout = await this.checkouts.insert({
      id: randomUUID(),
      user_id: request.userId,
      plan_id: plan.id,
      payment_method: request.paymentMethod,
      mode,
      step: FORWARD_STEPS[0],
      correlation_id: this.cls.get('correlationId') ?? randomUUID(),
    });
    await chosen.start(checkout);
    const body: CheckoutAccepted = { id: checkout.id, status: 'PENDING', mode, correlationId: checkout.correlation_id };
    if (idempotencyKey !== undefined) {
      // The key's first response, for a retry to find: nothing reads it here, so it goes with the COMMIT.
      await this.idempotencyKeys.insert({ ...idempotencyKey, requestHash, checkoutId: checkout.id, response: body });
    }
    return { body, replayed: false };
  }

  /**
   * Takes the key's lock for the rest of the transaction (waiting for a request in flight with
   * the same key, up to a limit; a request still in flight then is refused), then returns that key's first response if there is one and it has
   * not expired; an expired one is deleted, and the key starts afresh.
   */
  private async previousResponse(
    { key, scope }: IdempotencyKey,
    requestHash: string,
  ): Promise<CheckoutAccepted | undefined> {
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw new BadRequestException('Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
    // Waits for a request in flight with the same key, up to a limit: the lock goes in one write
    // with the read after it, and Postgres runs the read once the lock is granted.
    await this.idempotencyKeys.lock(scope, key, this.config.idempotencyWaitMs);
    const stored = await this.idempotencyKeys.find<CheckoutAccepted>(scope, key, this.config.idempotencyTtlHours);
    if (!stored) return undefined;
    if (stored.expired) {
      await this.idempotencyKeys.delete(scope, key);
      return undefined;
    }
    if (stored.request_hash !== requestHash) {
      throw new UnprocessableEntityException('This Idempotency-Key was already used with a different request');
    }
    return stored.response;
  }
}

/**
 * A lock that was not granted in time (lock_not_available) fails whichever statement rode with it:
 * a request with the same key is in flight.
 */
function refuseLockNotAvailable(error: unknown): never {
  if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === LOCK_NOT_AVAILABLE) {
    throw new ConflictException('A request with the same Idempotency-Key is still in flight; retry later');
  }
  throw error;
}

function hashOf({ userId, planId, paymentMethod, mode }: StartCheckoutRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([userId.toLowerCase(), planId, paymentMethod, mode ?? null]))
    .digest('hex');
}
