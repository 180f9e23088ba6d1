import type { UserEntity } from './database/user.entity';
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
