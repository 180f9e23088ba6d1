import { Global, Module } from '@nestjs/common';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
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

/**
 * The context store, and the transactions kept in it: `@Transactional()` methods and
 * `TransactionHost` share one transaction per unit of work, and the outbox writes into it.
 */
@Global()
@Module({
  imports: [
    ClsModule.forRoot({
      global: true,
      middleware: { mount: false },
      plugins: [
        new ClsPluginTransactional({
          adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
        }),
      ],
    }),
  ],
})
export class ContextModule {}
