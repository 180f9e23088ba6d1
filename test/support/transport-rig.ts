import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { SchedulerRegistry } from '@nestjs/schedule';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsServiceManager, type ClsService } from 'nestjs-cls';
import { randomBytes } from 'node:crypto';
import { IsInt, IsUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { appConfig, type AppRole } from '../../src/config/app.config';
import { readDatabaseConfig } from '../../src/config/database.config';
import { readRedisConfig } from '../../src/config/redis.config';
import type { MessageContext } from '../../src/infra/context/message-context';
import { dataSourceOptions } from '../../src/infra/database/data-source.options';
import { DatabaseConnector } from '../../src/infra/database/database.connector';
import { Hooks } from '../../src/infra/hooks/hooks';
import { metricsConfig } from '../../src/infra/metrics/metrics.config';
import { MetricsRegistry } from '../../src/infra/metrics/metrics.registry';
import { ConsumerCatalog } from '../../src/infra/outbox/consuming/consumer-catalog';
import { OUTBOX_MIGRATIONS } from '../../src/infra/outbox/database/migrations';
import { DeliveryFailures } from '../../src/infra/outbox/consuming/delivery-failures';
import { DeliveryLog } from '../../src/infra/outbox/dead-letters/delivery-log';
import { DeliveryRuns } from '../../src/infra/outbox/consuming/delivery-runs';
import { Inbox } from '../../src/infra/outbox/consuming/inbox';
import { LocalBus } from '../../src/infra/outbox/relaying/local-bus';
import { LocalRoutes } from '../../src/infra/outbox/local-routes';
import { defineEvent, type MessageContract } from '../../src/infra/outbox/message';
import { outboxConfig, type OutboxConfig } from '../../src/infra/outbox/outbox.config';
import { OutboxCommits } from '../../src/infra/outbox/publishing/outbox-commits';
import { OutboxConsumer } from '../../src/infra/outbox/consuming/outbox.consumer';
import { OutboxJobs } from '../../src/infra/outbox/consuming/outbox-jobs';
import { JobDelivery } from '../../src/infra/outbox/consuming/job-delivery';
import { SuspectDelivery } from '../../src/infra/outbox/consuming/suspect-delivery';
import { OutboxMetrics } from '../../src/infra/outbox/outbox.metrics';
import { OutboxPublisher } from '../../src/infra/outbox/publishing/outbox.publisher';
import { OutboxQueues } from '../../src/infra/outbox/outbox.queues';
import { OutboxRelay } from '../../src/infra/outbox/relaying/outbox.relay';
import { ProcessLease } from '../../src/infra/outbox/process-lease';
import { QueuePrefix } from '../../src/infra/outbox/queue-prefix';
import { RedeliverySweeper } from '../../src/infra/outbox/relaying/redelivery.sweeper';
import { RelaySignal } from '../../src/infra/outbox/relaying/relay-signal';
import { type Declared, type MessageHandler, Subscriptions } from '../../src/infra/outbox/consuming/subscriptions';
import { RedisConnections } from '../../src/infra/redis/redis.connections';
import { AppRoles } from '../../src/infra/roles/app-roles';
import { PeriodicTasks } from '../../src/infra/scheduling/periodic-tasks';
import { StepRunner } from '../../src/infra/steps/step-runner';
import { dropDatabase, recreateDatabase } from './test-database';
import { runDatabasePrefix, runId, TEST_REDIS_URL, TEST_DATABASE_URL, withDatabaseName } from './test-env';

export class EntryPayload {
  @IsUUID() entryId!: string;
  @IsInt() amountCents!: number;
}
/** The rig's one kind of message: an entry recorded, whose consumers each note an effect. */
export const EntryNoted = defineEvent('unit.entry-noted.v1', EntryPayload);

export interface RigOptions {
  /** Over the defaults of outbox.config.ts. */
  outbox?: Partial<OutboxConfig>;
  /** The seam's hooks; by default the ones that let everything be. */
  hooks?: Hooks;
  /** The roles of this rig's process; by default all of them. */
  roles?: AppRole[];
}

let rigs = 0;

/**
 * The transport and the step runner as the app builds them, without the app: the same classes,
 * constructed here by hand over a database of the rig's own (migrated with the transport's
 * migrations alone) and a Redis key prefix of its own. No Nest module graph, no HTTP, no module of
 * the app: a test adds its own consumers (`consume`) and calls the relay, the sweep, the inbox or
 * the consumer's workers itself. Nothing runs by itself: no periodic task is started.
 */
export class TransportRig {
  readonly cls = ClsServiceManager.getClsService() as ClsService<MessageContext>;
  readonly subscriptions = new Subscriptions(new DiscoveryService(new ModulesContainer()), new MetadataScanner());
  readonly config: OutboxConfig;
  readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>;
  readonly redis: RedisConnections;
  readonly queuePrefix: QueuePrefix;
  readonly queues: OutboxQueues;
  readonly metrics: OutboxMetrics;
  readonly catalog: ConsumerCatalog;
  readonly relay: OutboxRelay;
  readonly publisher: OutboxPublisher;
  readonly deliveryLog: DeliveryLog;
  readonly runs: DeliveryRuns;
  readonly lease: ProcessLease;
  readonly commits: OutboxCommits;
  readonly localRoutes: LocalRoutes;
  readonly bus: LocalBus;
  readonly inbox: Inbox;
  readonly sweeper: RedeliverySweeper;
  readonly stepRunner: StepRunner;
  readonly consumer: OutboxConsumer;
  private consuming = false;

  private constructor(
    readonly databaseName: string,
    readonly dataSource: DataSource,
    readonly connector: DatabaseConnector,
    readonly prefix: string,
    options: RigOptions,
  ) {
    const database = readDatabaseConfig({ DATABASE_URL: withDatabaseName(TEST_DATABASE_URL, databaseName) });
    this.config = { ...outboxConfig(), ...options.outbox };
    const hooks = options.hooks ?? new Hooks();
    const roles = new AppRoles({ ...appConfig(), roles: new Set(options.roles ?? ['api', 'relay', 'worker']) });
    const tasks = new PeriodicTasks(new SchedulerRegistry(), connector, roles);
    const adapter = new TransactionalAdapterTypeOrm({ dataSourceToken: DataSource });
    this.txHost = new TransactionHost({
      ...adapter.optionsFactory(dataSource),
      connectionName: undefined,
      enableTransactionProxy: false,
      defaultTxOptions: {},
      extraProviderTokens: [],
    });
    const redisConfig = readRedisConfig({ REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix });
    this.redis = new RedisConnections(redisConfig);
    this.queuePrefix = new QueuePrefix(dataSource, connector, redisConfig, database);
    this.queues = new OutboxQueues(this.redis, this.queuePrefix, this.config);
    this.metrics = new OutboxMetrics(
      new MetricsRegistry(metricsConfig()),
      dataSource,
      this.queues,
      this.subscriptions,
      this.config,
      database,
    );
    this.catalog = new ConsumerCatalog(dataSource, connector, this.subscriptions, this.config);
    this.relay = new OutboxRelay(
      dataSource,
      connector,
      this.queues,
      this.catalog,
      this.metrics,
      hooks,
      roles,
      tasks,
      this.config,
      database,
    );
    this.lease = new ProcessLease(dataSource, this.config);
    this.commits = new OutboxCommits(dataSource, connector);
    new RelaySignal(dataSource, this.commits, this.relay, this.config);
    this.localRoutes = new LocalRoutes(
      dataSource,
      this.catalog,
      this.subscriptions,
      roles,
      this.lease,
      connector,
      this.config,
    );
    this.publisher = new OutboxPublisher(this.txHost, this.cls, this.commits, this.localRoutes);
    this.deliveryLog = new DeliveryLog(dataSource, this.txHost, this.cls, this.publisher);
    this.runs = new DeliveryRuns(dataSource, this.txHost, this.deliveryLog, this.lease, this.config);
    this.inbox = new Inbox(this.txHost, this.cls, this.metrics, this.config);
    const failures = new DeliveryFailures(this.deliveryLog, this.queues, this.cls, this.config);
    this.bus = new LocalBus(
      this.localRoutes,
      this.inbox,
      failures,
      this.metrics,
      hooks,
      this.cls,
      this.commits,
      this.config,
    );
    this.commits.onApplicationBootstrap();
    this.sweeper = new RedeliverySweeper(dataSource, this.queues, this.catalog, this.metrics, tasks, this.config);
    this.stepRunner = new StepRunner(this.publisher, hooks);
    const delivery = new JobDelivery(
      this.subscriptions,
      this.catalog,
      this.inbox,
      failures,
      this.metrics,
      hooks,
      this.config,
    );
    const jobs = new OutboxJobs(
      this.subscriptions,
      delivery,
      new SuspectDelivery(delivery, this.runs, this.metrics),
      this.queues,
      this.config,
    );
    this.consumer = new OutboxConsumer(jobs, this.subscriptions, roles, connector, this.queues);
  }

  /** A database of the rig's own, migrated with the transport's migrations, and a table of effects. */
  static async start(options: RigOptions = {}): Promise<TransportRig> {
    // The transport logs its failures and dead letters, which these tests cause on purpose.
    Logger.overrideLogger(false);
    const tag = `${process.env.JEST_WORKER_ID ?? 0}_${randomBytes(3).toString('hex')}_${++rigs}`;
    const name = `${runDatabasePrefix()}unit_${tag}`;
    await recreateDatabase(name);
    const url = withDatabaseName(TEST_DATABASE_URL, name);
    const database = readDatabaseConfig({ DATABASE_URL: url });
    const dataSource = new DataSource({
      ...dataSourceOptions({ ...database, poolSize: 6 }),
      entities: [],
      migrations: OUTBOX_MIGRATIONS,
      logging: false,
      logger: undefined,
    });
    // The app's own start: connects, checks the session's bounds, migrates.
    const connector = new DatabaseConnector(dataSource, database);
    await connector.onApplicationBootstrap();
    if (!connector.connected) throw new Error(`The rig's database ${name} did not start`);
    await dataSource.query(
      `CREATE SCHEMA unit;
       CREATE TABLE unit.effects (consumer text NOT NULL, entry_id uuid NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`,
    );
    // A queue's keys start with `{t<run id>`: the global teardown removes them.
    return new TransportRig(name, dataSource, connector, `t${runId()}-unit-${tag}`, options);
  }

  /** Declares a consumer, as `@OnEvent` with `@Consumer` does, and registers this process's consumers in the catalog. */
  async consume(declared: Partial<Declared> & { consumer: string }, handle: MessageHandler): Promise<void> {
    this.subscriptions.add({ contracts: [EntryNoted], ...declared }, handle);
    await this.catalog.register();
  }

  /**
   * Starts the local bus (with `outbox: { delivery: 'local' }`), as the app does at boot; resolves
   * once it may claim messages.
   */
  async startLocalBus(): Promise<void> {
    this.localRoutes.onApplicationBootstrap();
    const deadline = Date.now() + 5_000;
    while (!this.localRoutes.claims(EntryNoted.type, {}) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Starts a worker per queue of the declared consumers, as the app does at boot. */
  startConsuming(): void {
    this.consuming = true;
    this.consumer.onApplicationBootstrap();
  }

  /** Publishes messages in one transaction, as a use case does; answers their ids. */
  publish(
    ...entries: Array<{ payload: EntryPayload; aggregateId?: string; contract?: MessageContract }>
  ): Promise<string[]> {
    return this.cls.run(() =>
      this.txHost.withTransaction(async () => {
        const ids: string[] = [];
        for (const { payload, aggregateId, contract } of entries) {
          ids.push(
            await this.publisher.publish(contract ?? EntryNoted, payload, {
              aggregateId: aggregateId ?? payload.entryId,
            }),
          );
        }
        return ids;
      }),
    );
  }

  /** Inside a handler or a step: a write in the delivery's transaction. */
  async noteEffect(consumer: string, entryId: string): Promise<void> {
    await this.txHost.tx.query(`INSERT INTO unit.effects (consumer, entry_id) VALUES ($1, $2)`, [consumer, entryId]);
  }

  query<Row>(sql: string, params: unknown[] = []): Promise<Row[]> {
    return this.dataSource.query<Row[]>(sql, params);
  }

  async stop(): Promise<void> {
    if (this.consuming) await this.consumer.beforeApplicationShutdown();
    await this.bus.beforeApplicationShutdown();
    this.runs.onApplicationShutdown();
    this.lease.onApplicationShutdown();
    await Promise.all(this.queues.all().map((queue) => queue.obliterate({ force: true }).catch(() => undefined)));
    await this.queues.onApplicationShutdown();
    await this.redis.onApplicationShutdown();
    this.connector.onApplicationShutdown();
    await this.dataSource.destroy();
    await dropDatabase(this.databaseName);
  }
}
