import { ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { authConfig, type AuthConfig } from './auth.config';

/**
 * Whether a buyer may still act: the module that owns buyers provides it (identity), so that the
 * guard at the edge can ask without knowing any module.
 */
export abstract class BuyerStatusSource {
  /** `blocked`, `active`, or `unknown` for a user that does not exist (any more). */
  abstract statusOf(userId: string): Promise<'active' | 'blocked' | 'unknown'>;
}

/** At most this many buyers' statuses are remembered per process; the oldest go first. */
const REMEMBERED = 10_000;

/**
 * A blocked buyer's token stops working: a write (a checkout, say) reads the buyer's status
 * afresh, a read trusts what was read within AUTH_BUYER_STATUS_CACHE_MS. Refused with 403 and
 * `reason: "buyer-blocked"`, whatever the route.
 */
@Injectable()
export class BuyerStanding {
  private readonly known = new Map<string, { blocked: boolean; readAt: number }>();
  private source?: BuyerStatusSource | null;

  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
  ) {}

  async check(userId: string, fresh: boolean): Promise<void> {
    if (await this.isBlocked(userId, fresh)) {
      throw new ForbiddenException({
        statusCode: 403,
        error: 'Forbidden',
        message: 'This buyer is blocked: their token no longer opens anything',
        reason: 'buyer-blocked',
      });
    }
  }

  private async isBlocked(userId: string, fresh: boolean): Promise<boolean> {
    const remembered = this.known.get(userId);
    if (!fresh && remembered && Date.now() - remembered.readAt < this.config.buyerStatusCacheMs) {
      return remembered.blocked;
    }
    const source = this.sourceOf();
    if (!source) return false;
    const blocked = (await source.statusOf(userId)) === 'blocked';
    this.known.delete(userId);
    this.known.set(userId, { blocked, readAt: Date.now() });
    if (this.known.size > REMEMBERED) this.known.delete(this.known.keys().next().value!);
    return blocked;
  }

  /** Found once among the app's modules; an app without one (a test's) has no blocked buyers. */
  private sourceOf(): BuyerStatusSource | undefined {
    if (this.source === undefined) {
      try {
        this.source = this.moduleRef.get(BuyerStatusSource, { strict: false });
      } catch {
        this.source = null;
      }
    }
    return this.source ?? undefined;
  }
}
