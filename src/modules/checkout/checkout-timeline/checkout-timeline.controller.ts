import { Controller, Get, NotFoundException, Param, ParseUUIDPipe } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { SignedIn } from '../../../infra/auth/access';
import { type Caller, CurrentCaller, mayActFor } from '../../../infra/auth/caller';
import { type TransportEntry, TransportHistory } from '../../../infra/outbox';
import { CheckoutsRepository } from '../database/checkouts.repository';
import { SagasRepository } from '../orchestration';

export class TimelineEntry {
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty({
    example: 'event',
    description: 'event, command, handled, attempt-failed, duplicate, dead-lettered, or a saga record',
  })
  kind!: string;
  @ApiProperty({ nullable: true, example: 'billing.payment-authorized.v1' }) type!: string | null;
  @ApiProperty({ nullable: true, example: 'billing' }) module!: string | null;
  @ApiProperty({ nullable: true, example: 'content.grant-access' }) consumer!: string | null;
  @ApiProperty({ nullable: true, example: 1 }) attempt!: number | null;
  @ApiProperty({ nullable: true, format: 'uuid' }) eventId!: string | null;
  @ApiProperty({ nullable: true, format: 'uuid' }) causationId!: string | null;
  @ApiProperty({ nullable: true, description: 'The payload, the error, or what the saga recorded' }) detail!: unknown;
}

/** What a buyer reads where the operator reads an internal error (a driver's text, a stack's first line). */
export const NEUTRAL_ERROR = 'something went wrong on our side; it was retried or handed to an operator';

/** The entry as a buyer may read it: internal error texts replaced by a neutral one. */
function forBuyer(entry: TransportEntry): TransportEntry {
  const detail = entry.detail as Record<string, unknown> | null;
  if (detail === null || typeof detail !== 'object' || !('error' in detail)) return entry;
  return { ...entry, detail: { ...detail, error: NEUTRAL_ERROR } };
}

@ApiTags('checkouts')
@SignedIn()
@Controller('checkouts')
export class CheckoutTimelineController {
  constructor(
    private readonly checkouts: CheckoutsRepository,
    private readonly sagas: SagasRepository,
    private readonly history: TransportHistory,
  ) {}

  @Get(':id/timeline')
  @ApiOkResponse({
    type: [TimelineEntry],
    description: 'Every message, delivery, retry and compensation, in time order',
  })
  @ApiNotFoundResponse({ description: 'No such checkout, or not yours' })
  async timeline(
    @Param('id', new ParseUUIDPipe()) id: string,
    @CurrentCaller() caller: Caller,
  ): Promise<TransportEntry[]> {
    const checkout = await this.checkouts.find(id);
    if (!checkout || !mayActFor(caller, checkout.user_id)) throw new NotFoundException(`No checkout ${id}`);
    const entries = await this.entries(checkout);
    return caller.kind === 'operator' ? entries : entries.map(forBuyer);
  }

  private async entries(checkout: { id: string; correlation_id: string; mode: string }): Promise<TransportEntry[]> {
    const transport = await this.history.forCorrelation(checkout.correlation_id, checkout.id);
    if (checkout.mode !== 'orchestration') return transport;
    // An orchestrated checkout also has the saga's own record: what it learned, and what it did.
    const saga = (await this.sagas.history(checkout.id)).map(
      ({ at, input, from, to, step, command, attempt, detail }): TransportEntry => ({
        at: at.toISOString(),
        kind: 'saga',
        type: input,
        module: 'checkout',
        consumer: null,
        attempt: attempt ?? null,
        eventId: null,
        causationId: null,
        detail: { from, to, step, command, ...(detail as object | null) },
      }),
    );
    return [...transport, ...saga].sort((a, b) => a.at.localeCompare(b.at));
  }
}
