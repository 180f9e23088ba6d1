import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../infra/admin/admin.guard';
import { EffectsNotCounted, INVARIANT_RULES, type InvariantReport, Invariants } from './invariants';

@ApiTags('operations')
@AdminOnly()
@Controller('admin/invariants')
export class InvariantsController {
  constructor(private readonly invariants: Invariants) {}

  @Get()
  @ApiServiceUnavailableResponse({
    description:
      'The fiscal authority, or the card gateway service (CARD_GATEWAY_URL), did not list what it filed under a ' +
      'checkout: its invoices or money were not counted, so there is no report. `checkoutId` names the checkout; ' +
      'ask again once the participant answers.',
  })
  @ApiOkResponse({
    description:
      '`{checked, violations: [{checkoutId, status, rule, description}], atStake: [...]}` over every checkout, ' +
      "counted from what left the system (the gateway's operations, asked of the gateway service when there is " +
      "one, the fiscal authority's invoices, asked of it, and the emails handed over). " +
      `Rules: ${INVARIANT_RULES.join(', ')}. ` +
      '`atStake`: what each checkout in INTERVENTION holds (authorizations, captures, access, emails).',
  })
  async check(): Promise<InvariantReport> {
    try {
      return await this.invariants.check();
    } catch (error) {
      // No report, rather than one that says "fine" about money or invoices it never counted.
      if (error instanceof EffectsNotCounted) {
        throw new ServiceUnavailableException({ message: error.message, checkoutId: error.checkoutId });
      }
      throw error;
    }
  }
}
