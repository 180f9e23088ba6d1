import { Controller, Get, NotFoundException, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { SignedIn } from '../../../infra/auth/access';
import { type Caller, CurrentCaller, mayActFor } from '../../../infra/auth/caller';
import { IdentityApi, type UserView } from '../identity.api';
import { UserResponse } from '../user.dto';

@ApiTags('users')
@SignedIn()
@Controller('users')
export class GetUserController {
  constructor(private readonly identity: IdentityApi) {}

  /** A buyer reads only themself; anyone else's id answers as if it did not exist. */
  @Get(':id')
  @ApiOkResponse({ type: UserResponse })
  @ApiBadRequestResponse({ description: 'The id is not a UUID' })
  @ApiNotFoundResponse({ description: 'No such user, or not yours' })
  async get(@Param('id', new ParseUUIDPipe()) id: string, @CurrentCaller() caller: Caller): Promise<UserView> {
    const user = mayActFor(caller, id) ? await this.identity.findUser(id) : undefined;
    if (!user) throw new NotFoundException(`No user ${id}`);
    return user;
  }
}
