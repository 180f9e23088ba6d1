import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

export interface Plan {
  id: string;
  name: string;
  priceCents: number;
  currency: string;
}

/** The plans on sale and their prices, seeded by migration. */
@Injectable()
export class PlansRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  list(): Promise<Plan[]> {
    return this.txHost.tx.query<Plan[]>(
      `SELECT id, name, price_cents AS "priceCents", currency FROM billing.plans ORDER BY price_cents`,
    );
  }

  async find(id: string): Promise<Plan | undefined> {
    const [plan] = await this.txHost.tx.query<Plan[]>(
      `SELECT id, name, price_cents AS "priceCents", currency FROM billing.plans WHERE id = $1`,
      [id],
    );
    return plan;
  }
}
