export { OnMessage } from './subscriptions';
export { defineCommand, defineEvent, type Delivery, type MessageContract, type PayloadOf } from './message';
export { OutboxPublisher, PublishOutsideTransactionError, type PublishOptions } from './outbox.publisher';
export { OutboxModule } from './outbox.module';
