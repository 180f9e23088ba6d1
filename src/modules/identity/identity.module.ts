import { Module } from '@nestjs/common';
import { BuyerStatusSource } from '../../infra/auth/buyer-standing';
import { DatabaseModule } from '../../infra/database/database.module';
import { BlockUserController } from './block-user/block-user.controller';
import { CreateUserController } from './create-user/create-user.controller';
import { CreateUser } from './create-user/create-user.use-case';
import { CreateIdentitySchema1795970000100 } from './database/migrations/1795970000100-create-identity-schema';
import { CreateUsers1795970002100 } from './database/migrations/1795970002100-create-users';
import { UserEntity } from './database/user.entity';
import { UsersRepository } from './database/users.repository';
import { GetUserController } from './get-user/get-user.controller';
import { IdentityApi } from './identity.api';
import { IdentityStatusSource } from './identity-status.source';
import { VerifyUserCommandHandler } from './verify-user/verify-user.command-handler';
import { VerifyUser } from './verify-user/verify-user.use-case';
import { VerifyUserReaction } from './verify-user/verify-user.reaction';

/** Users, and whether one may buy. */
@Module({
  imports: [
    DatabaseModule.forFeature({
      entities: [UserEntity],
      migrations: [CreateIdentitySchema1795970000100, CreateUsers1795970002100],
    }),
  ],
  controllers: [CreateUserController, GetUserController, BlockUserController],
  providers: [
    UsersRepository,
    IdentityApi,
    CreateUser,
    VerifyUser,
    VerifyUserReaction,
    VerifyUserCommandHandler,
    { provide: BuyerStatusSource, useClass: IdentityStatusSource },
  ],
  exports: [IdentityApi],
})
export class IdentityModule {}
