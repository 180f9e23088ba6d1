import { Body, Controller, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import type { UserView } from '../identity.api';
import { CreateUserDto, UserResponse } from './create-user.dto';
import { CreateUser } from './create-user.handler';

@ApiTags('users')
@Controller('users')
export class CreateUserController {
  constructor(private readonly createUser: CreateUser) {}

  @Post()
  @ApiCreatedResponse({ type: UserResponse })
  @ApiBadRequestResponse({ description: 'Invalid or unknown fields' })
  @ApiConflictResponse({ description: 'The email is taken' })
  create(@Body() body: CreateUserDto): Promise<UserView> {
    return this.createUser.execute(body);
  }
}
