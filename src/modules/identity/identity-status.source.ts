import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BuyerStatusSource } from '../../infra/auth/buyer-standing';

/** Identity answers the edge's question: may this buyer still act? */
@Injectable()
export class IdentityStatusSource extends BuyerStatusSource {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async statusOf(userId: string): Promise<'active' | 'blocked' | 'unknown'> {
    const [row] = await this.dataSource.query<Array<{ status: 'active' | 'blocked' }>>(
      `SELECT status FROM identity.users WHERE id = $1`,
      [userId],
    );
    return row?.status ?? 'unknown';
  }
}
