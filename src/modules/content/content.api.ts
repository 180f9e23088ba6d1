import { Injectable } from '@nestjs/common';
import { EntitlementsRepository } from './database/entitlements.repository';
import { accessFrom, mayWatch, type PlanAccess } from './domain/entitlement';
import { PlanLicensesRepository } from './database/plan-licenses.repository';

/** A buyer's access to one plan, as every reader must see it: only active access lets them watch. */
export interface PlanAccessView {
  planId: string;
  access: Exclude<PlanAccess, 'none'>;
  mayWatch: boolean;
}

/** What other modules may ask content. */
@Injectable()
export class ContentApi {
  constructor(
    private readonly licensing: PlanLicensesRepository,
    private readonly entitlements: EntitlementsRepository,
  ) {}

  /** Plan id to the countries where it may be sold; `['*']` means every country. */
  licensedCountries(): Promise<Map<string, string[]>> {
    return this.licensing.licensedCountries();
  }

  /**
   * The plans a buyer holds, or is being granted (provisional: the checkout may still be undone),
   * with whether they may watch each now. Plans whose every grant was revoked are left out.
   */
  async accessOf(userId: string): Promise<PlanAccessView[]> {
    const byPlan = await this.entitlements.statusesOf(userId);
    return [...byPlan].flatMap(([planId, statuses]) => {
      const access = accessFrom(statuses);
      return access === 'none' ? [] : [{ planId, access, mayWatch: mayWatch(access) }];
    });
  }
}
