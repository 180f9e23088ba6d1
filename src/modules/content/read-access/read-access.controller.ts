import { Controller, Get, NotFoundException, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { SignedIn } from '../../../infra/auth/access';
import { type Caller, CurrentCaller, mayActFor } from '../../../infra/auth/caller';
import { IdentityApi } from '../../identity';
import { ContentApi, type PlanAccessView } from '../content.api';

class PlanAccessResponse {
  @ApiProperty({ example: 'premium' }) planId!: string;
  @ApiProperty({
    enum: ['active', 'provisional'],
    description:
      '`active`: bought and paid. `provisional`: granted while the payment is held but not yet taken; it becomes active with the capture, or is withdrawn if the capture is declined',
  })
  access!: 'active' | 'provisional';
  @ApiProperty({ description: 'Whether the buyer may watch the plan now: only active access lets them' })
  mayWatch!: boolean;
}

/** "May I watch this plan?": what a buyer holds, read as every reader of access must read it. */
@ApiTags('users')
@SignedIn()
@Controller('users')
export class ReadAccessController {
  constructor(
    private readonly identity: IdentityApi,
    private readonly content: ContentApi,
  ) {}

  /** A buyer reads only their own access; anyone else's answers as if the user did not exist. */
  @Get(':id/access')
  @ApiOkResponse({ type: [PlanAccessResponse], description: 'Plans held or being granted; no entry: no access' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID' })
  @ApiNotFoundResponse({ description: 'No such user, or not yours' })
  async read(@Param('id', new ParseUUIDPipe()) id: string, @CurrentCaller() caller: Caller): Promise<PlanAccessView[]> {
    const user = mayActFor(caller, id) ? await this.identity.findUser(id) : undefined;
    if (!user) throw new NotFoundException(`No user ${id}`);
    return this.content.accessOf(user.id);
  }
}
