import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiGoneResponse,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { AdminOnly } from '../../admin/admin.guard';
import { ListLimit } from '../../http/list-limit';
import { type DeadLetter, DeadLetters, type DeadLetterStatus } from './dead-letters';

class DeadLetterQuery {
  @ApiPropertyOptional({ enum: ['dead', 'redriven', 'discarded'], default: 'dead' })
  @IsOptional()
  @IsIn(['dead', 'redriven', 'discarded'])
  status?: DeadLetterStatus;

  @ApiPropertyOptional({ example: 'notifications.send-welcome-email' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  consumer?: string;

  @ListLimit(100)
  limit?: number;
}

class DeadLetterView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The message, stable across every delivery' }) messageId!: string;
  @ApiProperty({ example: 'notifications.send-welcome-email' }) consumer!: string;
  @ApiProperty({ example: 'billing.payment-captured.v1' }) type!: string;
  @ApiProperty() correlationId!: string;
  @ApiProperty({ example: 'SMTP server refused the message' }) error!: string;
  @ApiProperty({ example: 5 }) attempts!: number;
  @ApiProperty({ format: 'date-time' }) firstFailedAt!: string;
  @ApiProperty({ format: 'date-time' }) lastFailedAt!: string;
  @ApiProperty({ enum: ['dead', 'redriven', 'discarded'] }) status!: string;
  @ApiProperty({ format: 'date-time', nullable: true }) resolvedAt!: string | null;
  @ApiProperty({ description: 'The message as delivered: type, payload, correlation and causation' })
  message!: object;
}

@ApiTags('operations')
@AdminOnly()
@Controller('admin/dead-letters')
export class DeadLettersController {
  constructor(private readonly deadLetters: DeadLetters) {}

  @Get()
  @ApiOkResponse({ type: [DeadLetterView], description: 'Most recent failure first' })
  list(@Query() query: DeadLetterQuery): Promise<DeadLetter[]> {
    return this.deadLetters.list(query);
  }

  @Post(':id/redrive')
  @HttpCode(200)
  @ApiOkResponse({ type: DeadLetterView, description: 'Delivered again to that consumer only' })
  @ApiConflictResponse({ description: 'Already redriven or discarded' })
  @ApiGoneResponse({ description: 'Its message is no longer in the outbox: nothing to deliver' })
  redrive(@Param('id', new ParseUUIDPipe()) id: string): Promise<DeadLetter> {
    return this.deadLetters.redrive(id);
  }

  @Delete(':id')
  @ApiOkResponse({ type: DeadLetterView, description: 'Discarded; kept as the record' })
  @ApiConflictResponse({ description: 'Already redriven or discarded' })
  discard(@Param('id', new ParseUUIDPipe()) id: string): Promise<DeadLetter> {
    return this.deadLetters.discard(id);
  }
}
