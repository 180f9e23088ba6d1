export { Consumer, type ConsumerOptions, type Dedup } from './subscriptions';
export { OnEvent } from './on-event';
export {
  defineCommand,
  defineEvent,
  type Delivery,
  type MessageContract,
  type MessageType,
  type PayloadOf,
} from './message';
export { OutboxPublisher, PublishOutsideTransactionError, type PublishOptions } from './outbox.publisher';
export { OutboxModule } from './outbox.module';
export {
  DeadLetterDiscarded,
  type DeadLetterPayload,
  DeadLetterRedriven,
  MessageDeadLettered,
  type MessageDeadLetteredPayload,
} from './contracts';
export { type TransportEntry, TransportHistory } from './transport-history';
export { type OutgoingMessage, outgoing } from './outgoing-message';
export { PermanentFailure } from './permanent-failure';
export { AnsweredFailure } from './answered-failure';
