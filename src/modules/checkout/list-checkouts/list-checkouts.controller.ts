import { BadRequestException, Controller, Get, Inject, Query, UnauthorizedException } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { SignedIn } from '../../../infra/auth/access';
import { type Caller, CurrentCaller } from '../../../infra/auth/caller';
import { checkoutConfig, type CheckoutConfig, CHECKOUT_MODES, type CheckoutMode } from '../checkout.config';
import { CheckoutsRepository, type CheckoutView, toCheckoutView } from '../database/checkouts.repository';
import { CHECKOUT_STATUSES, type CheckoutStatus } from '../domain/checkout';
import { CheckoutResponse } from '../get-checkout/get-checkout.controller';

class ListCheckoutsQuery {
  @ApiPropertyOptional({ enum: CHECKOUT_STATUSES })
  @IsOptional()
  @IsIn(CHECKOUT_STATUSES)
  status?: CheckoutStatus;

  @ApiPropertyOptional({ enum: CHECKOUT_MODES })
  @IsOptional()
  @IsIn(CHECKOUT_MODES)
  mode?: CheckoutMode;

  @ApiPropertyOptional({ description: 'Only checkouts still PENDING after CHECKOUT_STUCK_AFTER_MS' })
  @IsOptional()
  @Transform(({ obj }: { obj: Record<string, unknown> }) =>
    obj.stuck === 'true' ? true : obj.stuck === 'false' ? false : obj.stuck,
  )
  @IsBoolean({ message: 'stuck must be true or false' })
  stuck?: boolean;

  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

class CheckoutPage {
  @ApiProperty({ type: [CheckoutResponse] }) items!: CheckoutView[];
  @ApiProperty({ nullable: true, description: 'Pass as cursor for the next page; null on the last' })
  nextCursor!: string | null;
}

const encodeCursor = (view: CheckoutView) => Buffer.from(`${view.createdAt}|${view.id}`).toString('base64url');

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at);
  if (Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/i.test(id ?? '')) {
    throw new BadRequestException('cursor is not one this API gave');
  }
  return { createdAt, id };
}

@ApiTags('checkouts')
@SignedIn()
@Controller('checkouts')
export class ListCheckoutsController {
  constructor(
    private readonly checkouts: CheckoutsRepository,
    @Inject(checkoutConfig.KEY) private readonly config: CheckoutConfig,
  ) {}

  @Get()
  @ApiOkResponse({
    type: CheckoutPage,
    description: "Newest first: every buyer's for the operator, a buyer's own for a buyer",
  })
  async list(@Query() query: ListCheckoutsQuery, @CurrentCaller() caller: Caller): Promise<CheckoutPage> {
    if (caller.kind === 'anonymous') throw new UnauthorizedException('A bearer token is required');
    const limit = query.limit ?? 20;
    const rows = await this.checkouts.list({
      userId: caller.kind === 'buyer' ? caller.userId : undefined,
      status: query.status,
      mode: query.mode,
      stuckAfterMs: query.stuck ? this.config.stuckAfterMs : undefined,
      after: query.cursor ? decodeCursor(query.cursor) : undefined,
      limit: limit + 1,
    });
    const items = rows.slice(0, limit).map(toCheckoutView);
    return { items, nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]) : null };
  }
}
