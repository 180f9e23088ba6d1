import { Controller, HttpCode, NotFoundException, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AdminOnly } from '../../../infra/admin/admin.guard';
import { UserEntity } from '../database/user.entity';
import type { UserStatus } from '../domain/buyer';
import { toUserView, type UserView } from '../identity.api';
import { UserResponse } from '../user.dto';

/** Operators block a user (who then cannot buy) and unblock them. */
@ApiTags('users')
@AdminOnly()
@Controller('admin/users/:id')
export class BlockUserController {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

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
    const users = this.txHost.tx.getRepository(UserEntity);
    const user = await users.findOneBy({ id });
    if (!user) throw new NotFoundException(`No user ${id}`);
    user.status = status;
    return toUserView(await users.save(user));
  }
}
