import { Injectable } from '@nestjs/common';
import { type BuyerVerdict, verifyBuyer } from '../domain/buyer';
import { IdentityApi } from '../identity.api';

/** The checkout's first step: may this user buy? It changes nothing, so there is nothing to undo. */
@Injectable()
export class VerifyUser {
  constructor(private readonly identity: IdentityApi) {}

  async verify(userId: string): Promise<BuyerVerdict> {
    return verifyBuyer(await this.identity.findUser(userId));
  }
}
