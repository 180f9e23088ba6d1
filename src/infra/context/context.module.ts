import { Global, Module } from '@nestjs/common';
import type { RequestHandler, Request, Response } from 'express';
import { ClsMiddleware, ClsModule, ClsService } from 'nestjs-cls';
import { CORRELATION_HEADER, correlationIdFrom, type MessageContext } from './message-context';

/**
 * Every request runs in a context (nestjs-cls) that holds its correlation id: taken from
 * X-Correlation-Id or made, and echoed on the response. Mounted first of all (see configureApp),
 * so that even a request that the body parser refuses gets its id.
 */
export function correlationMiddleware(): RequestHandler {
  const middleware = new ClsMiddleware({
    generateId: true,
    idGenerator: (req: Request) => correlationIdFrom(req.headers[CORRELATION_HEADER]),
    setup: (cls: ClsService, _req: Request, res: Response) => {
      (cls as ClsService<MessageContext>).set('correlationId', cls.getId());
      res.setHeader(CORRELATION_HEADER, cls.getId());
    },
  });
  return (req, res, next) => void middleware.use(req, res, next);
}

@Global()
@Module({
  imports: [ClsModule.forRoot({ global: true, middleware: { mount: false } })],
})
export class ContextModule {}
