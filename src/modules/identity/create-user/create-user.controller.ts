import { Body, Controller, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../../../infra/auth/access';
import { BuyerTokens } from '../../../infra/auth/buyer-tokens';
import { RateLimited } from '../../../infra/auth/rate-limit';
import type { UserView } from '../identity.api';
import { CreatedUserResponse, CreateUserDto } from './create-user.dto';
import { CreateUser } from './create-user.use-case';

/** Signing up: anyone may, and gets the token that lets them buy and follow their checkouts. */
@ApiTags('users')
@Controller('users')
export class CreateUserController {
  constructor(
    private readonly createUser: CreateUser,
    private readonly tokens: BuyerTokens,
  ) {}

  @Post()
  @Public()
  @RateLimited('signups')
  @ApiCreatedResponse({ type: CreatedUserResponse })
  @ApiBadRequestResponse({ description: 'Invalid or unknown fields' })
  @ApiConflictResponse({ description: 'The email is taken' })
  async create(@Body() body: CreateUserDto): Promise<UserView & { token: string }> {
    const user = await this.createUser.execute(body);
    return { ...user, token: await this.tokens.issue(user.id) };
  }
}
