import { HttpException, HttpStatus } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { isDatabaseUnavailable } from '../database/database-unavailable';
import { isTimeout } from '../database/timeouts';

/** Every error the API answers has this shape. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  /** What went wrong in detail: the problems by field of a validation error, for instance. */
  details?: unknown;
  [extra: string]: unknown;
}

export interface FieldProblem {
  field: string;
  problems: string[];
}

export function errorBody(statusCode: number, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, ...extra };
}

/** Errors raised by body-parser carry an HTTP status and a type such as `entity.too.large`. */
function isBodyParserError(error: unknown): error is Error & { status: number; type: string; limit?: number } {
  return (
    error instanceof Error &&
    typeof (error as { status?: unknown }).status === 'number' &&
    typeof (error as { type?: unknown }).type === 'string'
  );
}

function bodyParserMessage(error: Error & { type: string; limit?: number }): string {
  switch (error.type) {
    case 'entity.too.large':
      return `Request body is larger than the limit of ${error.limit} bytes`;
    case 'entity.parse.failed':
      return `Request body is not valid JSON: ${error.message}`;
    default:
      return error.message;
  }
}

/** Maps anything thrown while serving a request to the status and body the client gets. */
export function toErrorBody(error: unknown): ErrorBody {
  // The Express adapter wraps body-parser's errors in an HttpException; the cause says what happened.
  const cause = error instanceof Error ? error.cause : undefined;
  if (isBodyParserError(cause)) return errorBody(cause.status, bodyParserMessage(cause));
  if (isBodyParserError(error)) return errorBody(error.status, bodyParserMessage(error));
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    if (typeof response === 'string') return errorBody(status, response);
    const { message, error: _reason, statusCode: _status, ...extra } = response as Record<string, unknown>;
    const text = Array.isArray(message) ? message.join('; ') : String(message ?? error.message);
    return errorBody(status, text, extra);
  }
  // The shape of /health's answer, so that a client reads both the same way.
  if (isDatabaseUnavailable(error)) {
    return errorBody(HttpStatus.SERVICE_UNAVAILABLE, 'down: postgres', { details: { postgres: { status: 'down' } } });
  }
  // Held up past DATABASE_LOCK_TIMEOUT_MS or DATABASE_STATEMENT_TIMEOUT_MS: busy, not broken.
  if (isTimeout(error)) return errorBody(HttpStatus.SERVICE_UNAVAILABLE, 'held up in the database: retry');
  return errorBody(HttpStatus.INTERNAL_SERVER_ERROR, 'Internal server error');
}
