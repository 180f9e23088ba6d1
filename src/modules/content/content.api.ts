import { Injectable } from '@nestjs/common';
import { Hooks } from '../../infra/hooks/hooks';
import type { StepRun } from '../../infra/steps';
import {
  ActivateAccess,
  type ActivateAccessInput,
  type ActivateOutcome,
} from './activate-access/activate-access.use-case';
import { activateAccessStep } from './activate-access/activate-access.step';
import { EntitlementsRepository } from './database/entitlements.repository';
import { accessFrom, mayWatch, type PlanAccess } from './domain/entitlement';
import { PlanLicensesRepository } from './database/plan-licenses.repository';
import { GrantAccess, type GrantAccessInput, type GrantOutcome } from './grant-access/grant-access.use-case';
import { grantAccessStep } from './grant-access/grant-access.step';
import { RevokeAccess, type RevokeAccessInput, type RevokeOutcome } from './revoke-access/revoke-access.use-case';
import { revokeAccessStep } from './revoke-access/revoke-access.step';

/** A buyer's access to one plan, as every reader must see it: only active access lets them watch. */
export interface PlanAccessView {
  planId: string;
  access: Exclude<PlanAccess, 'none'>;
  mayWatch: boolean;
}

/**
 * What other modules may ask content. The checkout's steps are here too, for a checkout carried
 * by something other than this app's transport (the bench's peers): each runs in the caller's
 * transaction under the step's hooks, as the step runner runs it, and answers what it did.
 */
@Injectable()
export class ContentApi {
  constructor(
    private readonly licensing: PlanLicensesRepository,
    private readonly entitlements: EntitlementsRepository,
    private readonly hooks: Hooks,
    private readonly grant: GrantAccess,
    private readonly activate: ActivateAccess,
    private readonly revoke: RevokeAccess,
  ) {}

  grantAccess(input: GrantAccessInput): Promise<StepRun<GrantOutcome>> {
    return this.hooks.step(grantAccessStep, () => this.grant.execute(input));
  }

  activateAccess(input: ActivateAccessInput): Promise<StepRun<ActivateOutcome>> {
    return this.hooks.step(activateAccessStep, () => this.activate.execute(input));
  }

  /** The grant's compensation. */
  revokeAccess(input: RevokeAccessInput): Promise<RevokeOutcome> {
    return this.hooks.compensation(revokeAccessStep.name, () => this.revoke.execute(input));
  }

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
