import {
  BadRequestException,
  Body,
  type CanActivate,
  Controller,
  Delete,
  Get,
  Injectable,
  NotFoundException,
  Put,
  UseGuards,
} from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { AdminOnly } from '../admin/admin.guard';
import { FAULT_ACTIONS, type FaultAction, Faults } from './faults';

class FaultRuleDto {
  @ApiProperty({ example: 'consumer:content.grant-access' })
  @IsString()
  @MaxLength(200)
  point!: string;

  @ApiProperty({ enum: FAULT_ACTIONS, example: 'fail' })
  @IsIn(FAULT_ACTIONS)
  action!: FaultAction;

  @ApiPropertyOptional({ example: 2, description: 'Occurrences affected; omitted: every one' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  times?: number;

  @ApiPropertyOptional({
    example: '5f0c6c1e-2b7a-4d8e-9a51-0c7d3e1f2a4b',
    description: "Only this correlation id's work (a checkout's steps and compensations); omitted: everyone's",
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  correlationId?: string;
}

class FaultRulesDto {
  @ApiProperty({ type: [FaultRuleDto] })
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => FaultRuleDto)
  rules!: FaultRuleDto[];
}

/** The whole surface answers 404 unless FAULT_INJECTION=true. */
@Injectable()
class FaultInjectionEnabled implements CanActivate {
  constructor(private readonly faults: Faults) {}

  canActivate(): boolean {
    if (!this.faults.enabled) throw new NotFoundException('Fault injection is disabled (FAULT_INJECTION=false)');
    return true;
  }
}

@ApiTags('operations')
@AdminOnly()
@UseGuards(FaultInjectionEnabled)
@Controller('admin/faults')
export class FaultsController {
  constructor(private readonly faults: Faults) {}

  @Get()
  @ApiOkResponse({ description: 'The points where faults can be injected, and the rules in force' })
  list() {
    return { points: this.faults.declared(), rules: this.faults.active() };
  }

  @Put()
  @ApiOkResponse({ description: 'Replaces every rule; each names a point, an action and how many times' })
  set(@Body() body: FaultRulesDto) {
    const problems = this.faults.problemsWith(body.rules);
    if (problems.length > 0) throw new BadRequestException({ message: 'Invalid fault rules', details: problems });
    this.faults.set(body.rules);
    return { rules: this.faults.active() };
  }

  @Delete()
  @ApiOkResponse({ description: 'Clears every rule' })
  clear() {
    this.faults.clear();
    return { rules: [] };
  }
}
