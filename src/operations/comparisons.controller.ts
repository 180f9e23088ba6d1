import { Controller, Get, NotFoundException } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../infra/auth/access';
import { Comparisons } from './comparisons';

/** Read-only: the console draws these figures; nothing here changes state. */
@ApiTags('operations')
@Public()
@Controller('comparisons')
export class ComparisonsController {
  constructor(private readonly comparisons: Comparisons) {}

  @Get('latest')
  @ApiOkResponse({
    description:
      '`{file, comparison}`: the newest JSON that `npm run compare` wrote to bench/results/ (COMPARE_RESULTS_DIR), ' +
      'with the machine and the time it was measured on',
  })
  @ApiNotFoundResponse({ description: 'No comparison has been run where this app runs' })
  async latest() {
    const latest = await this.comparisons.latest();
    if (!latest) throw new NotFoundException('No comparison yet: run `npm run compare` where the app runs');
    return latest;
  }
}
