import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { DiscoveryModule } from '@nestjs/core';
import { DatabaseModule } from '../database/database.module';
import { StepCatalog } from '../steps/step-catalog';
import { StepRunner } from '../steps/step-runner';
import { OUTBOX_MIGRATIONS } from './database/migrations';
import { ConsumerCatalog } from './consuming/consumer-catalog';
import { DeadLetters } from './dead-letters/dead-letters';
import { DeadLettersController } from './dead-letters/dead-letters.controller';
import { DeliveryFailures } from './consuming/delivery-failures';
import { DeliveryLog } from './dead-letters/delivery-log';
import { DeliveryRuns } from './consuming/delivery-runs';
import { Housekeeping } from './housekeeping';
import { Inbox } from './consuming/inbox';
import { LocalBus } from './relaying/local-bus';
import { LocalRoutes } from './local-routes';
import { LogicalRelay } from './relaying/logical-relay';
import { outboxConfig } from './outbox.config';
import { OutboxCommits } from './publishing/outbox-commits';
import { OutboxConsumer } from './consuming/outbox.consumer';
import { OutboxJobs } from './consuming/outbox-jobs';
import { JobDelivery } from './consuming/job-delivery';
import { SuspectDelivery } from './consuming/suspect-delivery';
import { OutboxMetrics } from './outbox.metrics';
import { OutboxPublisher } from './publishing/outbox.publisher';
import { OutboxQueues } from './outbox.queues';
import { OutboxRelay } from './relaying/outbox.relay';
import { ProcessLease } from './process-lease';
import { QueuePrefix } from './queue-prefix';
import { RedeliverySweeper } from './relaying/redelivery.sweeper';
import { RelaySignal } from './relaying/relay-signal';
import { Subscriptions } from './consuming/subscriptions';
import { TransportHistory } from './transport-history';

/**
 * The transport: the publisher that modules write messages with, and the relay, consumers,
 * redelivery sweep, housekeeping and dead-letter handling behind it. It also provides the step
 * runner, which participants carry out their steps with: it publishes their answers.
 */
@Global()
@Module({
  imports: [
    ConfigModule.forFeature(outboxConfig),
    DiscoveryModule,
    DatabaseModule.forFeature({
      migrations: OUTBOX_MIGRATIONS,
    }),
  ],
  controllers: [DeadLettersController],
  providers: [
    Subscriptions,
    ConsumerCatalog,
    OutboxPublisher,
    QueuePrefix,
    OutboxQueues,
    OutboxMetrics,
    OutboxRelay,
    LogicalRelay,
    RelaySignal,
    OutboxCommits,
    ProcessLease,
    LocalRoutes,
    LocalBus,
    OutboxConsumer,
    OutboxJobs,
    JobDelivery,
    SuspectDelivery,
    Inbox,
    DeliveryLog,
    DeliveryFailures,
    DeliveryRuns,
    DeadLetters,
    RedeliverySweeper,
    Housekeeping,
    TransportHistory,
    StepRunner,
    StepCatalog,
  ],
  exports: [
    OutboxPublisher,
    Subscriptions,
    OutboxQueues,
    DeadLetters,
    TransportHistory,
    StepRunner,
    StepCatalog,
    QueuePrefix,
  ],
})
export class OutboxModule {}
