import { Injectable } from '@nestjs/common';
import { type Plan, Plans } from './plans/plans';

/** What other modules may ask billing. */
@Injectable()
export class BillingApi {
  constructor(private readonly plans: Plans) {}

  listPlans(): Promise<Plan[]> {
    return this.plans.list();
  }

  findPlan(id: string): Promise<Plan | undefined> {
    return this.plans.find(id);
  }
}
