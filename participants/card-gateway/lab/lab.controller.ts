import {
  Body,
  type CallHandler,
  type CanActivate,
  Controller,
  Delete,
  type ExecutionContext,
  Get,
  Inject,
  Injectable,
  type NestInterceptor,
  NotFoundException,
  Post,
  Res,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { CARD_GATEWAY_CONFIG, type CardGatewayConfig } from '../card-gateway.config';
import { OPERATION, type Route } from '../requests';
import { FaultRule } from './fault-rules';
import { Lab, type LabState } from './lab';

/**
 * The admin API opens only with CARD_GATEWAY_ADMIN_TOKEN set, to a bearer of that token: without
 * one it is not there (404), so that a service started without a lab in mind takes no faults.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(@Inject(CARD_GATEWAY_CONFIG) private readonly config: CardGatewayConfig) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.config.adminToken) throw new NotFoundException();
    const given = Buffer.from(context.switchToHttp().getRequest<Request>().headers.authorization ?? '');
    const expected = Buffer.from(`Bearer ${this.config.adminToken}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new UnauthorizedException({ statusCode: 401, error: 'Unauthorized', reason: 'admin-token-required' });
    }
    return true;
  }
}

/** `GET` what is in force, `POST` one more rule, `DELETE` them all. */
@Controller('admin/faults')
@UseGuards(AdminGuard)
export class LabController {
  constructor(private readonly lab: Lab) {}

  @Get()
  state(): LabState {
    return this.lab.state();
  }

  /** An outage that refuses connections closes this one too, once answered: the next request finds it down. */
  @Post()
  set(@Body() rule: FaultRule, @Res({ passthrough: true }) response: Response): LabState {
    if (rule.fault === 'down') response.setHeader('connection', 'close');
    return this.lab.set(rule);
  }

  @Delete()
  clear(): LabState {
    return this.lab.clear();
  }
}

/** Runs each gateway operation through the lab's faults; every other route as it is. */
@Injectable()
export class LabInterceptor implements NestInterceptor {
  constructor(
    private readonly lab: Lab,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const operation = this.reflector.get<Route | undefined>(OPERATION, context.getHandler());
    if (!operation) return next.handle();
    return from(this.lab.around(operation, () => lastValueFrom(next.handle())));
  }
}
