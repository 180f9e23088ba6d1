import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { describeError } from '../infra/errors';
import { AdminOnly } from '../infra/admin/admin.guard';
import { BillingApi } from '../modules/billing';

/** A participant as the app sees it: whether it answered its status, and the faults its lab has in force. */
export interface ParticipantSeen {
  name: string;
  url: string;
  answered: boolean;
  /** Its lab's state (`rules`, `down`, `inFlight`), null when it has no lab; absent when it did not answer. */
  lab?: unknown;
  /** Why it did not answer. */
  problem?: string;
}

/** How long the app waits for a participant's status: an operator's page is not held by one that is down. */
const STATUS_TIMEOUT_MS = 2_000;

@ApiTags('operations')
@AdminOnly()
@Controller('admin/participants')
export class ParticipantsController {
  constructor(private readonly billing: BillingApi) {}

  @Get()
  @ApiOkResponse({
    description:
      '`{participants: [{name, url, answered, lab?, problem?}]}`: each service the app reaches (the fiscal ' +
      'authority, and the card gateway when CARD_GATEWAY_URL is set), asked for its status: `lab` is what its ' +
      'lab has in force (`rules`, `down` with its mode and end, `inFlight`), null without a lab; `problem` ' +
      'says why one did not answer (down, refusing connections).',
  })
  async list(): Promise<{ participants: ParticipantSeen[] }> {
    return { participants: await Promise.all(this.billing.participants.map(statusOf)) };
  }
}

async function statusOf({ name, url }: { name: string; url: string }): Promise<ParticipantSeen> {
  try {
    const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(STATUS_TIMEOUT_MS) });
    if (!response.ok) return { name, url, answered: false, problem: `answered ${response.status}` };
    const { lab } = (await response.json()) as { lab?: unknown };
    return { name, url, answered: true, lab: lab ?? null };
  } catch (error) {
    return { name, url, answered: false, problem: describeError(error) };
  }
}
