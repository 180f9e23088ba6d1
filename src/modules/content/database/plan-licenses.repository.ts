import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

/** Where each plan may be sold: `['*']` for everywhere, else the ISO 3166-1 alpha-2 codes. */
@Injectable()
export class PlanLicensesRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async licensedCountries(): Promise<Map<string, string[]>> {
    const rows = await this.txHost.tx.query<Array<{ plan_id: string; countries: string[] }>>(
      `SELECT l.plan_id,
              CASE WHEN l.everywhere THEN ARRAY['*']
                   ELSE coalesce(array_agg(c.country ORDER BY c.country) FILTER (WHERE c.country IS NOT NULL), '{}') END
                AS countries
         FROM content.plan_licenses l LEFT JOIN content.plan_countries c ON c.plan_id = l.plan_id
        GROUP BY l.plan_id, l.everywhere`,
    );
    return new Map(rows.map((row) => [row.plan_id, row.countries]));
  }
}
