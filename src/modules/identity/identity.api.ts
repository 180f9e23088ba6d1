import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { UserEntity } from './database/user.entity';
import type { UserStatus } from './domain/buyer';

export interface UserView {
  id: string;
  email: string;
  name: string;
  country: string;
  status: UserStatus;
}

export const toUserView = ({ id, email, name, country, status }: UserEntity): UserView => ({
  id,
  email,
  name,
  country,
  status,
});

/** What other modules may ask identity. */
@Injectable()
export class IdentityApi {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async findUser(id: string): Promise<UserView | undefined> {
    const user = await this.txHost.tx.getRepository(UserEntity).findOneBy({ id });
    return user ? toUserView(user) : undefined;
  }
}
