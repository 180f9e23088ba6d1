import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../infra/admin/admin.guard';
import { INVARIANT_RULES, type InvariantReport, Invariants } from './invariants';

@ApiTags('operations')
@AdminOnly()
@Controller('admin/invariants')
export class InvariantsController {
  constructor(private readonly invariants: Invariants) {}

  @Get()
  @ApiOkResponse({
    description:
      '`{checked, violations: [{checkoutId, status, rule, description}], atStake: [...]}` over every checkout, ' +
      `counted from what left the system (the gateway's operations, the emails handed over). Rules: ${INVARIANT_RULES.join(', ')}. ` +
      '`atStake`: what each checkout in INTERVENTION holds (authorizations, captures, access, emails).',
  })
  check(): Promise<InvariantReport> {
    return this.invariants.check();
  }
}
