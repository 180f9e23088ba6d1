import { Controller, Get, NotFoundException, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { UserResponse } from '../create-user/create-user.dto';
import { IdentityApi, type UserView } from '../identity.api';

@ApiTags('users')
@Controller('users')
export class GetUserController {
  constructor(private readonly identity: IdentityApi) {}

  @Get(':id')
  @ApiOkResponse({ type: UserResponse })
  @ApiBadRequestResponse({ description: 'The id is not a UUID' })
  @ApiNotFoundResponse({ description: 'No such user' })
  async get(@Param('id', new ParseUUIDPipe()) id: string): Promise<UserView> {
    const user = await this.identity.findUser(id);
    if (!user) throw new NotFoundException(`No user ${id}`);
    return user;
  }
}
