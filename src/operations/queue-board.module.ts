import {
  Inject,
  Injectable,
  type MiddlewareConsumer,
  Module,
  type NestMiddleware,
  type NestModule,
  type OnApplicationBootstrap,
  UnauthorizedException,
} from '@nestjs/common';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { appConfig, type AppConfig } from '../config/app.config';
import { AdminGuard } from '../infra/admin/admin.guard';
import { OutboxQueues } from '../infra/outbox/outbox.queues';
import { Subscriptions } from '../infra/outbox/consuming/subscriptions';

export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * The admin token, for a page that a browser opens: as a bearer token like every admin route, or
 * as the password of HTTP Basic authentication, which the browser asks for once and then sends
 * with every request of the page (its scripts and API calls included).
 */
@Injectable()
class AdminOnlyMiddleware implements NestMiddleware {
  constructor(private readonly guard: AdminGuard) {}

  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    const [scheme = '', credentials = ''] = (request.headers.authorization ?? '').split(' ');
    const token =
      scheme.toLowerCase() === 'bearer'
        ? credentials
        : scheme.toLowerCase() === 'basic'
          ? Buffer.from(credentials, 'base64').toString('utf8').split(':').slice(1).join(':')
          : undefined;
    try {
      await this.guard.authorize(token);
    } catch (error) {
      if (error instanceof UnauthorizedException) {
        response.setHeader('WWW-Authenticate', 'Basic realm="queues", charset="UTF-8"');
      }
      throw error;
    }
    next();
  }
}

/**
 * Bull Board at /admin/queues, behind the admin token: each module queue's waiting, active and
 * delayed jobs, named by their message's type, with the ids they carry and the attempts so far. Read-only: Postgres keeps
 * the record of deliveries (inbox, attempts, dead letters, redrive), and a job retried or removed
 * by hand behind its back would only confuse it.
 */
@Injectable()
class QueueBoard implements OnApplicationBootstrap {
  private readonly adapter = new ExpressAdapter().setBasePath(QUEUE_BOARD_PATH);
  private readonly board = createBullBoard({
    queues: [],
    serverAdapter: this.adapter,
    options: { uiConfig: { boardTitle: 'Checkout queues' } },
  });

  constructor(
    private readonly queues: OutboxQueues,
    private readonly subscriptions: Subscriptions,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  get router(): RequestHandler {
    return this.adapter.getRouter() as RequestHandler;
  }

  /**
   * Subscriptions know the queues once the handlers are discovered, which is before this hook; the
   * queues' prefix, when derived from the database, once Postgres answers.
   */
  onApplicationBootstrap(): void {
    if (!this.config.roles.has('api')) return;
    void this.queues.ready.then(() =>
      this.board.setQueues(
        this.subscriptions.queues().map((name) => new BullMQAdapter(this.queues.queue(name), { readOnlyMode: true })),
      ),
    );
  }
}

@Module({ providers: [QueueBoard, AdminGuard, AdminOnlyMiddleware] })
export class QueueBoardModule implements NestModule {
  constructor(private readonly board: QueueBoard) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(AdminOnlyMiddleware, this.board.router).forRoutes(QUEUE_BOARD_PATH, `${QUEUE_BOARD_PATH}/*path`);
  }
}
