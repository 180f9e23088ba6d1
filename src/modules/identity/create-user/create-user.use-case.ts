import { ConflictException, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { QueryFailedError } from 'typeorm';
import { UserEntity } from '../database/user.entity';
import { toUserView, type UserView } from '../identity.api';
import type { CreateUserDto } from './create-user.dto';

const UNIQUE_VIOLATION = '23505';

@Injectable()
export class CreateUser {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ email, name, country }: CreateUserDto): Promise<UserView> {
    try {
      const users = this.txHost.tx.getRepository(UserEntity);
      return toUserView(await users.save(users.create({ email: email.toLowerCase(), name, country })));
    } catch (error) {
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === UNIQUE_VIOLATION) {
        throw new ConflictException(`A user with email ${email.toLowerCase()} already exists`);
      }
      throw error;
    }
  }
}
