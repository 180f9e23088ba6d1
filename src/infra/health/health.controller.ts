import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import type { HealthCheckResult } from '@nestjs/terminus';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/access';
import { type Caller, CurrentCaller } from '../auth/caller';
import { type ErrorBody, errorBody } from '../http/error-body';
import { SharedHealthCheck } from './health.check';

type HealthParts = Record<string, { status: string } | undefined>;

/** Each part's up or down, and nothing of what its driver said. */
const statusesOnly = (parts?: HealthParts): HealthParts | undefined =>
  parts && Object.fromEntries(Object.entries(parts).map(([name, part]) => [name, part && { status: part.status }]));

@ApiTags('operations')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly health: SharedHealthCheck) {}

  @Get()
  @ApiOkResponse({
    description:
      "Postgres and Redis answer, and every queue's producer and worker reach its keys (a check at most a second old)",
  })
  @ApiServiceUnavailableResponse({
    description: "Something is down; `message` names it. The drivers' errors are the operator's only",
  })
  async check(
    @Res({ passthrough: true }) response: Response,
    @CurrentCaller() caller: Caller,
  ): Promise<HealthCheckResult | ErrorBody> {
    const outcome = await this.health.outcome();
    if ('fault' in outcome) throw outcome.fault;
    if (outcome.up) return outcome.report;
    // The API's error shape, with terminus' report of each dependency in `details`.
    const { info, details, error: down } = outcome.report;
    response.status(HttpStatus.SERVICE_UNAVAILABLE);
    // A driver's error names hosts, ports and why a login failed: the operator's to read, not anyone's.
    const shown = caller.kind === 'operator' ? (parts?: HealthParts) => parts : statusesOnly;
    return errorBody(HttpStatus.SERVICE_UNAVAILABLE, `down: ${Object.keys(down ?? {}).join(', ')}`, {
      status: 'error',
      info: shown(info),
      details: shown(details),
    });
  }
}
