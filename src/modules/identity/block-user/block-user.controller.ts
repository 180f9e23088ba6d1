import { Controller, HttpCode, NotFoundException, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../../../infra/admin/admin.guard';
import { UsersRepository } from '../database/users.repository';
import type { UserStatus } from '../domain/buyer';
import { toUserView, type UserView } from '../identity.api';
import { UserResponse } from '../user.dto';

/** Operators block a user (who then cannot buy) and unblock them. */
@ApiTags('users')
@AdminOnly()
@Controller('admin/users/:id')
export class BlockUserController {
  constructor(private readonly users: UsersRepository) {}

  @Post('block')
  @HttpCode(200)
  @ApiOkResponse({ type: UserResponse })
  block(@Param('id', new ParseUUIDPipe()) id: string): Promise<UserView> {
    return this.setStatus(id, 'blocked');
  }

  @Post('unblock')
  @HttpCode(200)
  @ApiOkResponse({ type: UserResponse })
  unblock(@Param('id', new ParseUUIDPipe()) id: string): Promise<UserView> {
    return this.setStatus(id, 'active');
  }

  private async setStatus(id: string, status: UserStatus): Promise<UserView> {
    const user = await this.users.findById(id);
    if (!user) throw new NotFoundException(`No user ${id}`);
    user.status = status;
    return toUserView(await this.users.save(user));
  }
}
