import { Injectable } from '@nestjs/common';
import { BuyerStatusSource } from '../../infra/auth/buyer-standing';
import { UsersRepository } from './database/users.repository';

/** Identity answers the edge's question: may this buyer still act? */
@Injectable()
export class IdentityStatusSource extends BuyerStatusSource {
  constructor(private readonly users: UsersRepository) {
    super();
  }

  async statusOf(userId: string): Promise<'active' | 'blocked' | 'unknown'> {
    return (await this.users.statusOf(userId)) ?? 'unknown';
  }
}
