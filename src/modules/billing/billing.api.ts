import { Injectable } from '@nestjs/common';
import { type Plan, PlansRepository } from './database/plans.repository';

/** What other modules may ask billing. */
@Injectable()
export class BillingApi {
  constructor(private readonly plans: PlansRepository) {}

  listPlans(): Promise<Plan[]> {
    return this.plans.list();
  }

  findPlan(id: string): Promise<Plan | undefined> {
    return this.plans.find(id);
  }
}
