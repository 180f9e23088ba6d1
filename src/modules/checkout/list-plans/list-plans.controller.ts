import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../../../infra/auth/access';
import { BillingApi } from '../../billing';
import { ContentApi } from '../../content';

class PlanResponse {
  @ApiProperty({ example: 'premium' }) id!: string;
  @ApiProperty({ example: 'Premium' }) name!: string;
  @ApiProperty({ example: 2990 }) priceCents!: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ example: ['BR', 'PT', 'US'], description: 'Where it may be bought; ["*"] means everywhere' })
  licensedCountries!: string[];
}

/** The storefront: billing's prices with content's licensing, side by side. */
@ApiTags('checkouts')
@Public()
@Controller('plans')
export class ListPlansController {
  constructor(
    private readonly billing: BillingApi,
    private readonly content: ContentApi,
  ) {}

  @Get()
  @ApiOkResponse({ type: [PlanResponse] })
  async list(): Promise<PlanResponse[]> {
    const [plans, licensing] = await Promise.all([this.billing.listPlans(), this.content.licensedCountries()]);
    return plans.map((plan) => ({ ...plan, licensedCountries: licensing.get(plan.id) ?? [] }));
  }
}
