import { Controller, Get, NotFoundException } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../infra/auth/access';
import { type Caller, CurrentCaller } from '../infra/auth/caller';
import { Comparisons } from './comparisons';

/**
 * What the public may read of the machine a comparison ran on: its size and speed, not its name,
 * kernel or operating system's release (which help someone aiming at it more than a reader).
 */
function publicMachine(machine: unknown): unknown {
  if (machine === null || typeof machine !== 'object') return machine;
  const { hostname: _hostname, platform, ...rest } = machine as Record<string, unknown>;
  const [os, , arch] = typeof platform === 'string' ? platform.split(' ') : [];
  return { ...rest, ...(os && arch ? { platform: `${os} ${arch}` } : {}) };
}

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
      'with the machine (its name and kernel for the operator only) and the time it was measured on',
  })
  @ApiNotFoundResponse({ description: 'No comparison has been run where this app runs' })
  async latest(@CurrentCaller() caller: Caller) {
    const latest = await this.comparisons.latest();
    if (!latest) throw new NotFoundException('No comparison yet: run `npm run compare` where the app runs');
    if (caller.kind === 'operator') return latest;
    const comparison = latest.comparison as Record<string, unknown> | null;
    if (comparison === null || typeof comparison !== 'object' || !('machine' in comparison)) return latest;
    return { ...latest, comparison: { ...comparison, machine: publicMachine(comparison.machine) } };
  }
}
