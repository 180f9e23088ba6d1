import {
  Body,
  type CallHandler,
  type CanActivate,
  Controller,
  Delete,
  type DynamicModule,
  type ExecutionContext,
  Get,
  Inject,
  Injectable,
  Module,
  type NestInterceptor,
  NotFoundException,
  Post,
  Res,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { APP_INTERCEPTOR, Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { OPERATION, requestValidation } from '../requests';
import type { FaultRule } from './fault-rules';
import { Lab, type LabState } from './lab';

/** What a lab is opened with: the admin token (unset: no admin API), and the class its rules are checked against. */
export interface LabSettings {
  adminToken: string | undefined;
  faultRule: new () => FaultRule;
}

const LAB_SETTINGS = Symbol('LabSettings');

/**
 * The admin API opens only with an admin token set, to a bearer of that token: without one it is
 * not there (404), so that a service started without a lab in mind takes no faults.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(@Inject(LAB_SETTINGS) private readonly settings: LabSettings) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.settings.adminToken) throw new NotFoundException();
    const given = Buffer.from(context.switchToHttp().getRequest<Request>().headers.authorization ?? '');
    const expected = Buffer.from(`Bearer ${this.settings.adminToken}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new UnauthorizedException({ statusCode: 401, error: 'Unauthorized', reason: 'admin-token-required' });
    }
    return true;
  }
}

/** The admin API of a lab whose rules are checked against `faultRule`. */
function labControllerOf(faultRule: LabSettings['faultRule']) {
  /** `GET` what is in force, `POST` one more rule, `DELETE` them all. */
  @Controller('admin/faults')
  @UseGuards(AdminGuard)
  class LabController {
    constructor(private readonly lab: Lab) {}

    @Get()
    state(): LabState {
      return this.lab.state();
    }

    /** An outage that refuses connections closes this one too, once answered: the next request finds it down. */
    @Post()
    set(
      @Body(requestValidation('the lab', faultRule)) rule: FaultRule,
      @Res({ passthrough: true }) response: Response,
    ): LabState {
      if (rule.fault === 'down') response.setHeader('connection', 'close');
      return this.lab.set(rule);
    }

    @Delete()
    clear(): LabState {
      return this.lab.clear();
    }
  }
  return LabController;
}

/** What a participant says of itself to anyone, as a third party's status page does. */
export interface ParticipantStatus {
  /** Its lab's faults in force; null when it has no lab (no admin token), and so takes none. */
  lab: LabState | null;
}

/**
 * `GET /status`: open to anyone, read only, and answered even while the lab fails every operation
 * (an outage answering 503 included), so that an operator sees why a participant misbehaves.
 */
@Controller('status')
class StatusController {
  constructor(
    private readonly lab: Lab,
    @Inject(LAB_SETTINGS) private readonly settings: LabSettings,
  ) {}

  @Get()
  status(): ParticipantStatus {
    return { lab: this.settings.adminToken ? this.lab.state() : null };
  }
}

/** Runs each operation (a route marked PerformsOperation) through the lab's faults; every other route as it is. */
@Injectable()
export class LabInterceptor implements NestInterceptor {
  constructor(
    private readonly lab: Lab,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const operation = this.reflector.get<string | undefined>(OPERATION, context.getHandler());
    if (!operation) return next.handle();
    return from(this.lab.around(operation, () => lastValueFrom(next.handle())));
  }
}

/** A participant's lab: its admin API, the faults around every operation, and Lab for the service's refusals. */
@Module({})
export class LabModule {
  static forRoot(settings: LabSettings): DynamicModule {
    return {
      module: LabModule,
      controllers: [labControllerOf(settings.faultRule), StatusController],
      providers: [
        { provide: LAB_SETTINGS, useValue: settings },
        Lab,
        AdminGuard,
        { provide: APP_INTERCEPTOR, useClass: LabInterceptor },
      ],
      exports: [Lab],
    };
  }
}
