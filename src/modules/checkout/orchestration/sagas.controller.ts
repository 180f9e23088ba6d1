import {
  ConflictException,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
} from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Transactional } from '@nestjs-cls/transactional';
import { IsIn, IsOptional } from 'class-validator';
import { ClsService } from 'nestjs-cls';
import { AdminOnly } from '../../../infra/admin/admin.guard';
import type { MessageContext } from '../../../infra/context/message-context';
import { ListLimit } from '../../../infra/http/list-limit';
import { ORCHESTRATED } from '../contracts';
import { CheckoutsRepository } from '../database/checkouts.repository';
import { SagasRepository, StaleSagaWriteError } from '../database/sagas.repository';
import type { SagaStatus } from '../domain/checkout.saga';
import { SagaRunner } from './saga.runner';

const SAGA_STATUSES = ['RUNNING', 'COMPENSATING', 'COMPLETED', 'COMPENSATED', 'INTERVENTION'] as const;

class SagaQuery {
  @ApiPropertyOptional({ enum: SAGA_STATUSES, example: 'INTERVENTION' })
  @IsOptional()
  @IsIn(SAGA_STATUSES)
  state?: SagaStatus;

  @ListLimit(50)
  limit?: number;
}

/** Operators look at orchestrated checkouts, and resume the ones that wait for a person. */
@ApiTags('operations')
@AdminOnly()
@Controller('admin/sagas')
export class SagasController {
  constructor(
    private readonly sagas: SagasRepository,
    private readonly checkouts: CheckoutsRepository,
    private readonly runner: SagaRunner,
    private readonly cls: ClsService<MessageContext>,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'Sagas (with their steps), most recently changed first' })
  list(@Query() query: SagaQuery) {
    return this.sagas.list(query.state, query.limit ?? 50);
  }

  @Post(':id/retry')
  @HttpCode(200)
  @Transactional()
  @ApiOkResponse({ description: 'Resumed from the step (or compensation) it stopped at' })
  @ApiConflictResponse({ description: 'The saga does not wait for a person' })
  async retry(@Param('id', new ParseUUIDPipe()) id: string) {
    const stored = await this.sagas.load(id);
    const checkout = await this.checkouts.find(id);
    if (!stored || !checkout) throw new NotFoundException(`No saga ${id}`);
    if (stored.saga.status !== 'INTERVENTION') {
      throw new ConflictException(`Saga ${id} is ${stored.saga.status}: only a saga in INTERVENTION is retried`);
    }
    // What the retry causes belongs to the checkout's process, not to this request.
    this.cls.set('correlationId', checkout.correlation_id);
    this.cls.set('headers', ORCHESTRATED);
    const saga = await this.runner.handle(id, { type: 'retry' }).catch((error: unknown) => {
      if (error instanceof StaleSagaWriteError) throw new ConflictException(`Saga ${id} changed meanwhile: retry`);
      throw error;
    });
    return { id, status: saga?.status, currentStep: saga?.current, undoing: saga?.undoing };
  }
}
