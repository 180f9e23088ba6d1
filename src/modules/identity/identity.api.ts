import { Injectable } from '@nestjs/common';
import type { UserEntity } from './database/user.entity';
import { UsersRepository } from './database/users.repository';
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
  constructor(private readonly users: UsersRepository) {}

  async findUser(id: string): Promise<UserView | undefined> {
    const user = await this.users.findById(id);
    return user ? toUserView(user) : undefined;
  }
}
