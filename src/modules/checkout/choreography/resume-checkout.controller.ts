import { Controller, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Transactional } from '@nestjs-cls/transactional';
import { AdminOnly } from '../../../infra/admin/admin.guard';
import { ResumeCheckout, type ResumeOutcome } from './resume-checkout.use-case';

@ApiTags('operations')
@AdminOnly()
@Controller('admin/checkouts')
export class ResumeCheckoutController {
  constructor(private readonly resumeCheckout: ResumeCheckout) {}

  @Post(':id/resume')
  @HttpCode(200)
  @Transactional()
  @ApiOkResponse({
    description:
      '`{id, status: "PENDING", step, resent}`: the participant of the step it stalled at is asked again ' +
      '(a new message, the same step idempotency key); recorded on its timeline',
  })
  @ApiNotFoundResponse({ description: 'No such checkout' })
  @ApiConflictResponse({ description: 'The checkout is orchestrated, or not in INTERVENTION' })
  resume(@Param('id', new ParseUUIDPipe()) id: string): Promise<ResumeOutcome> {
    return this.resumeCheckout.execute(id);
  }
}
