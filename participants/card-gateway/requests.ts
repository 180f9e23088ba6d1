import { UnprocessableEntityException } from '@nestjs/common';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { badRequest } from '../common/requests';
import { OPERATIONS, TEST_TOKENS, type TestToken } from './domain/operations';

/**
 * A void by key where the gateway offers none: a 422, not a decision. A decision (200) is kept for
 * its key and answered again; this depends on the gateway's profile and keeps nothing, and a 4xx
 * is not sent again by a well-kept client.
 */
export const VOID_BY_KEY_NOT_OFFERED = 'void-by-key-not-offered';

/** The routes a lab's faults are aimed at: each operation, and the listing of a reference. */
export const ROUTES = [...OPERATIONS, 'listing'] as const;
export type Route = (typeof ROUTES)[number];

export class AuthorizeBody {
  @IsIn(TEST_TOKENS) paymentMethod!: TestToken;
  @IsInt() @Min(1) @Max(100_000_000) amountCents!: number;
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code, such as EUR' }) currency!: string;
  @IsString() @Length(1, 200) reference!: string;
}

export class OnAuthorizationBody {
  @IsString() @Length(1, 200) authorizationId!: string;
}

/** Exactly one of the two: the authorization's id, or the idempotency key it was requested with. */
export class VoidBody {
  @IsOptional() @IsString() @Length(1, 200) authorizationId?: string;
  @IsOptional() @IsString() @Length(1, 200) authorizationKey?: string;
}

export function voidTarget(
  body: VoidBody,
  { voidsByKey }: { voidsByKey: boolean },
): { authorizationId: string } | { authorizationKey: string } {
  if (body.authorizationId !== undefined && body.authorizationKey === undefined)
    return { authorizationId: body.authorizationId };
  if (body.authorizationKey !== undefined && body.authorizationId === undefined) {
    if (!voidsByKey) {
      throw new UnprocessableEntityException({
        statusCode: 422,
        error: 'Unprocessable Entity',
        reason: VOID_BY_KEY_NOT_OFFERED,
        message: 'this gateway voids an authorization by its id only: look it up under its reference',
      });
    }
    return { authorizationKey: body.authorizationKey };
  }
  throw badRequest('invalid-request', 'a void names either authorizationId or authorizationKey, not both nor neither', {
    authorizationId: ['give exactly one of authorizationId and authorizationKey'],
  });
}
