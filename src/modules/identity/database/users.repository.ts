import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { DataSource } from 'typeorm';
import type { UserStatus } from '../domain/buyer';
import { UserEntity } from './user.entity';

/** The users, through their entity in the caller's transaction; one read of a status outside any. */
@Injectable()
export class UsersRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly dataSource: DataSource,
  ) {}

  findById(id: string): Promise<UserEntity | null> {
    return this.txHost.tx.getRepository(UserEntity).findOneBy({ id });
  }

  /** Writes a new user; a taken email fails with the unique violation of Postgres. */
  insert(user: Pick<UserEntity, 'email' | 'name' | 'country'>): Promise<UserEntity> {
    const users = this.txHost.tx.getRepository(UserEntity);
    return users.save(users.create(user));
  }

  save(user: UserEntity): Promise<UserEntity> {
    return this.txHost.tx.getRepository(UserEntity).save(user);
  }

  /** The user's status, read outside any transaction: undefined for no such user. */
  async statusOf(userId: string): Promise<UserStatus | undefined> {
    const [row] = await this.dataSource.query<Array<{ status: UserStatus }>>(
      `SELECT status FROM identity.users WHERE id = $1`,
      [userId],
    );
    return row?.status;
  }
}
