import { ConflictException, Injectable } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { UsersRepository } from '../database/users.repository';
import { toUserView, type UserView } from '../user.view';
import type { CreateUserDto } from './create-user.dto';

const UNIQUE_VIOLATION = '23505';

@Injectable()
export class CreateUser {
  constructor(private readonly users: UsersRepository) {}

  async execute({ email, name, country }: CreateUserDto): Promise<UserView> {
    try {
      return toUserView(await this.users.insert({ email: email.toLowerCase(), name, country }));
    } catch (error) {
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === UNIQUE_VIOLATION) {
        throw new ConflictException(`A user with email ${email.toLowerCase()} already exists`);
      }
      throw error;
    }
  }
}
