import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { describeError } from '../errors';
import { toErrorBody } from './error-body';

/** One JSON error shape for every failure; unexpected ones are logged with their stack, never sent. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const body = toErrorBody(exception);
    if (body.statusCode === 503) {
      // A dependency that is down, not a bug: one line, without a stack.
      this.logger.warn(`Answered 503: ${describeError(exception)}`);
    } else if (body.statusCode >= 500) {
      this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    }
    if (response.headersSent) return;
    response.status(body.statusCode).json(body);
  }
}
