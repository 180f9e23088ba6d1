import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../infra/admin/admin.guard';
import { type InvariantReport, Invariants } from './invariants';

@ApiTags('operations')
@AdminOnly()
@Controller('admin/invariants')
export class InvariantsController {
  constructor(private readonly invariants: Invariants) {}

  @Get()
  @ApiOkResponse({ description: '`{checked, violations: [{checkoutId, status, rule}]}` over every checkout' })
  check(): Promise<InvariantReport> {
    return this.invariants.check();
  }
}
