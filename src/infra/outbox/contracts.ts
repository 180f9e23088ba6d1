import { IsInt, IsString, IsUUID, MaxLength } from 'class-validator';
import { defineEvent } from './message';

/**
 * The transport's own published language: what happens to deliveries that an operator must know
 * about. A module that runs a process (the checkout) listens to learn that automation gave up.
 */
export class DeadLetterPayload {
  @IsUUID() deadLetterId!: string;
  @IsUUID() messageId!: string;
  /** The dead-lettered message's type and aggregate: what was being done, and to what. */
  @IsString() type!: string;
  @IsString() aggregateId!: string;
  @IsString() consumer!: string;
}

export class MessageDeadLetteredPayload extends DeadLetterPayload {
  @IsString() @MaxLength(2_000) error!: string;
  @IsInt() attempts!: number;
}

export const MessageDeadLettered = defineEvent('outbox.message-dead-lettered.v1', MessageDeadLetteredPayload);
export const DeadLetterRedriven = defineEvent('outbox.dead-letter-redriven.v1', DeadLetterPayload);
export const DeadLetterDiscarded = defineEvent('outbox.dead-letter-discarded.v1', DeadLetterPayload);
