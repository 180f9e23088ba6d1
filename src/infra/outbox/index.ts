export { Consumer, type ConsumerOptions, type Dedup } from './consuming/subscriptions';
export { OnEvent } from './consuming/on-event';
export {
  defineCommand,
  defineEvent,
  type Delivery,
  type MessageContract,
  type MessageType,
  type PayloadOf,
} from './message';
export { OutboxPublisher, PublishOutsideTransactionError, type PublishOptions } from './publishing/outbox.publisher';
export { OutboxModule } from './outbox.module';
export {
  DeadLetterDiscarded,
  type DeadLetterPayload,
  DeadLetterRedriven,
  MessageDeadLettered,
  type MessageDeadLetteredPayload,
} from './contracts';
export { type TransportEntry, TransportHistory } from './transport-history';
export { type OutgoingMessage, outgoing } from './publishing/outgoing-message';
export { PermanentFailure } from './consuming/permanent-failure';
export { AnsweredFailure } from './consuming/answered-failure';
export { outboxConfig, type OutboxConfig } from './outbox.config';
