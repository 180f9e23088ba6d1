import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { authConfig, type AuthConfig } from './auth.config';

const ISSUER = 'checkout-outbox-saga';
const AUDIENCE = 'checkout-buyer';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A buyer's bearer token: a JWT (HS256) whose subject is the user id, signed with
 * AUTH_TOKEN_SECRET (ADR 0046). Verifying pins the algorithm, issuer and audience, and checks
 * the expiry: whatever else a client sends is not a buyer.
 */
@Injectable()
export class BuyerTokens implements OnModuleInit {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly jwt: JwtService,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.usesDevSecret) {
      this.logger.warn(
        'AUTH_TOKEN_SECRET is not set: buyer tokens are signed with the development secret, which anyone can read. Set it anywhere but on your own machine.',
      );
    }
  }

  issue(userId: string): Promise<string> {
    return this.jwt.signAsync(
      {},
      {
        subject: userId,
        issuer: ISSUER,
        audience: AUDIENCE,
        expiresIn: this.config.tokenTtlSeconds,
        algorithm: 'HS256',
      },
    );
  }

  /** The buyer's user id, or undefined for anything that is not a token this app signed and still valid. */
  async verify(token: string): Promise<string | undefined> {
    try {
      const { sub } = await this.jwt.verifyAsync<{ sub?: unknown }>(token, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      return typeof sub === 'string' && UUID.test(sub) ? sub : undefined;
    } catch {
      return undefined;
    }
  }
}
