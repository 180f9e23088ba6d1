import {
  applyDecorators,
  BadRequestException,
  HttpCode,
  Post,
  createParamDecorator,
  type ExecutionContext,
  SetMetadata,
  type Type,
  ValidationPipe,
  type ValidationError,
} from '@nestjs/common';
import type { Request } from 'express';

/** A 400 whose body a client can act on: `reason` for code, `message` for people, `details` by field. */
export const badRequest = (reason: string, message: string, details?: Record<string, string[]>) =>
  new BadRequestException({ statusCode: 400, error: 'Bad Request', reason, message, ...(details && { details }) });

/**
 * Every body checked against its class (`expectedType`, where the route's parameter does not name
 * it); a field it does not declare is refused, not ignored. `who` says whose needs it failed.
 */
export const requestValidation = (who: string, expectedType?: Type) =>
  new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    expectedType,
    exceptionFactory: (errors: ValidationError[]) =>
      badRequest(
        'invalid-request',
        `the request does not say what ${who} needs`,
        Object.fromEntries(errors.map((error) => [error.property, Object.values(error.constraints ?? {})])),
      ),
  });

const KEY_HEADER = 'idempotency-key';

/** The caller's Idempotency-Key header: required, one value, 1 to 200 characters. */
export const IdempotencyKey = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const key = context.switchToHttp().getRequest<Request>().headers[KEY_HEADER];
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) {
    throw badRequest(
      'missing-idempotency-key',
      'every operation needs one Idempotency-Key header of 1 to 200 characters',
    );
  }
  return key;
});

/** Which operation a route performs (or that it lists): what the logs say and what a lab's faults are aimed at. */
export const OPERATION = 'participant:operation';
export const PerformsOperation = (route: string) => SetMetadata(OPERATION, route);

/** A POST at `path` that performs `route`'s operation and answers 200 with its decision, whatever it is. */
export const Performs = (path: string, route: string) =>
  applyDecorators(Post(path), HttpCode(200), PerformsOperation(route));
