import { Injectable } from '@nestjs/common';
import { Hooks } from '../../infra/hooks/hooks';
import type { StepRun } from '../../infra/steps';
import { CreateUser } from './create-user/create-user.use-case';
import type { CreateUserDto } from './create-user/create-user.dto';
import { UsersRepository } from './database/users.repository';
import { type BuyerVerdict, verifyBuyer } from './domain/buyer';
import { toUserView, type UserView } from './user.view';
import { verifyUserStep } from './verify-user/verify-user.step';

export { toUserView, type UserView };

/** What other modules may ask identity. */
@Injectable()
export class IdentityApi {
  constructor(
    private readonly users: UsersRepository,
    private readonly hooks: Hooks,
    private readonly createUserUseCase: CreateUser,
  ) {}

  async findUser(id: string): Promise<UserView | undefined> {
    const user = await this.users.findById(id);
    return user ? toUserView(user) : undefined;
  }

  /** Signing up, as POST /users does without HTTP (no token): for the bench's own buyers. */
  createUser(user: CreateUserDto): Promise<UserView> {
    return this.createUserUseCase.execute(user);
  }

  /**
   * The checkout's first step, for a checkout carried by something other than this app's
   * transport (the bench's peers): in the caller's transaction, under the step's hooks, as the
   * step runner runs VerifyUser.
   */
  verifyBuyer(userId: string): Promise<StepRun<BuyerVerdict>> {
    return this.hooks.step(verifyUserStep, async () => verifyBuyer(await this.findUser(userId)));
  }
}
