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
import { ApiConflictResponse, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { TransactionHost } from '@nestjs-cls/transactional';
import { IsIn, IsOptional } from 'class-validator';
import { ClsService } from 'nestjs-cls';
import { AdminOnly } from '../../../infra/admin/admin.guard';
import type { MessageContext } from '../../../infra/context/message-context';
import { ListLimit } from '../../../infra/http/list-limit';
import { ORCHESTRATED } from '../contracts';
import { isStaleSagaWrite, SagasRepository } from './database/sagas.repository';
import type { SagaView } from './database/saga-view';
import { FORWARD_STEPS } from '../core/checkout-steps';
import { isUndoing, type Saga, type SagaStatus } from './domain/saga';
import { Orchestrator } from './orchestrator';

const SAGA_STATUSES = ['RUNNING', 'COMPENSATING', 'COMPLETED', 'COMPENSATED', 'INTERVENTION'] as const;

const STEP_STATES = ['STARTED', 'DONE', 'FAILED', 'COMPENSATING', 'COMPENSATED'] as const;

class SagaStepResponse {
  @ApiProperty({ enum: FORWARD_STEPS }) step!: string;
  @ApiProperty({ enum: STEP_STATES }) state!: string;
  @ApiProperty({ description: 'Sends of the step' }) attempts!: number;
  @ApiProperty({ description: 'Sends of its compensation' }) compensationAttempts!: number;
  @ApiProperty({ description: 'Sent without an answer yet: it may have happened' }) uncertain!: boolean;
  @ApiProperty({ nullable: true, description: "The participant's answer, when it had one" }) result!: unknown;
  @ApiProperty({ nullable: true }) lastError!: string | null;
  @ApiProperty({ format: 'date-time' }) startedAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

class SagaResponse {
  @ApiProperty({ format: 'uuid', description: 'The checkout it runs' }) id!: string;
  @ApiProperty({ enum: SAGA_STATUSES, example: 'RUNNING' }) state!: string;
  @ApiProperty({ enum: FORWARD_STEPS, description: 'The step it is at, or undoing' }) currentStep!: string;
  @ApiProperty({ description: 'Whether it is undoing steps (compensating)' }) undoing!: boolean;
  @ApiProperty({ description: 'Sends of the current step or compensation' }) attempts!: number;
  @ApiProperty({ enum: FORWARD_STEPS, isArray: true, description: 'Steps still to undo, next first' })
  toUndo!: string[];
  @ApiProperty({ enum: ['completed', 'rejected', 'failed'], nullable: true }) outcome!: string | null;
  @ApiProperty({ nullable: true, example: 'not-licensed' }) reason!: string | null;
  @ApiProperty({ nullable: true, description: 'Why a person is needed' }) intervention!: string | null;
  @ApiProperty({ enum: ['RUNNING', 'COMPENSATING'], nullable: true, description: 'What a retry resumes' })
  interruptedWhile!: string | null;
  @ApiProperty({ description: 'Waiting out a backoff after a failed answer' }) backingOff!: boolean;
  @ApiProperty({ description: "Operators' retries so far; answers to sends of an earlier one are ignored" })
  generation!: number;
  @ApiProperty({ format: 'date-time', nullable: true, description: 'When it sends again without an answer' })
  nextDeadline!: string | null;
  @ApiProperty() version!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: [SagaStepResponse], description: 'The steps it has started, in order' })
  steps!: SagaStepResponse[];
}

class SagaRetryResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: SAGA_STATUSES, example: 'COMPENSATING' }) state!: string;
  @ApiProperty({ enum: FORWARD_STEPS }) currentStep!: string;
  @ApiProperty() undoing!: boolean;
}

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
    private readonly orchestrator: Orchestrator,
    private readonly cls: ClsService<MessageContext>,
    private readonly txHost: TransactionHost,
  ) {}

  @Get()
  @ApiOkResponse({ type: [SagaResponse], description: 'Sagas (with their steps), most recently changed first' })
  list(@Query() query: SagaQuery): Promise<SagaView[]> {
    return this.sagas.list(query.state, query.limit ?? 50);
  }

  @Post(':id/retry')
  @HttpCode(200)
  @ApiOkResponse({ type: SagaRetryResponse, description: 'Resumed from the step (or compensation) it stopped at' })
  @ApiConflictResponse({ description: 'The saga does not wait for a person' })
  async retry(@Param('id', new ParseUUIDPipe()) id: string): Promise<SagaRetryResponse> {
    // A stale write fails the COMMIT it rode with: caught around the transaction, not in it.
    const saga = await this.txHost
      .withTransaction(() => this.resume(id))
      .catch((error: unknown) => {
        if (isStaleSagaWrite(error)) throw new ConflictException(`Saga ${id} changed meanwhile: retry`);
        throw error;
      });
    return { id, state: saga.status, currentStep: saga.current, undoing: isUndoing(saga) };
  }

  private async resume(id: string): Promise<Saga> {
    const stored = await this.sagas.lockAndLoad(id);
    if (!stored) throw new NotFoundException(`No saga ${id}`);
    if (stored.saga.status !== 'INTERVENTION') {
      throw new ConflictException(`Saga ${id} is ${stored.saga.status}: only a saga in INTERVENTION is retried`);
    }
    // What the retry causes belongs to the checkout's process, not to this request.
    this.cls.set('correlationId', stored.checkout.correlation_id);
    this.cls.set('headers', ORCHESTRATED);
    const saga = await this.orchestrator.handle(id, { type: 'retry' });
    if (!saga) throw new NotFoundException(`No saga ${id}`);
    return saga;
  }
}
