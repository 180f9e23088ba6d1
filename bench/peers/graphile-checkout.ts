import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { EventEmitter } from 'node:events';
import { Pool } from 'pg';
import {
  Logger as GraphileLogger,
  makeWorkerUtils,
  run,
  runMigrations,
  type Runner,
  type TaskList,
  type WorkerEvents,
} from 'graphile-worker';
import { Logger } from '@nestjs/common';
import { databaseConfig, type DatabaseConfig } from '../../src/config/database.config';
import { DatabaseConnector } from '../../src/infra/database/database.connector';
import type { NewCheckout } from '../../src/modules/checkout';
import { FIRST_STEP, type Next, type PeerCheckout, type PeerStep } from './checkout-flow';
import { PeerEngine, peerCheckoutOf } from './peer-engine';
import { PeerSteps } from './peer-steps';

const STEPS: PeerStep[] = [
  'identity.verify-user',
  'billing.authorize-payment',
  'content.grant-access',
  'billing.capture-payment',
  'content.activate-access',
  'billing.issue-invoice',
  'notifications.send-welcome-email',
  'content.revoke-access',
  'billing.void-authorization',
];

interface StepJob {
  checkout: PeerCheckout;
  reason?: string;
}

/** graphile-worker's settings here, as its performance guide advises for short jobs at a high rate. */
const settings = () => {
  const concurrency = Number(process.env.GRAPHILE_CONCURRENCY ?? 16);
  return {
    concurrency,
    maxPoolSize: Number(process.env.GRAPHILE_POOL_SIZE ?? 10),
    // Jobs fetched a batch at a time, and completions written a batch at a time.
    localQueueSize: Number(process.env.GRAPHILE_LOCAL_QUEUE ?? concurrency + 1),
    completeJobBatchDelay: Number(process.env.GRAPHILE_COMPLETE_BATCH_MS ?? 0),
  };
};

/**
 * The checkout's six steps (and two compensations) as graphile-worker jobs: a Postgres queue, no
 * outbox and no Redis. The checkout's transaction adds the first step's job; each step's job runs
 * the participant's operation and adds the next step's job in the same transaction, keyed by
 * checkout and step, so that a step run twice replaces a next job still waiting instead of adding
 * a second. graphile-worker takes and completes each job in transactions of its own, around ours.
 *
 * A job whose process died stays locked by that process's workers, and graphile-worker hands it
 * out again only when its lock is four hours old; its documentation says to release the locks of
 * workers known to be dead (`forceUnlockWorkers`). So this process records the ids its workers lock
 * jobs under, by GRAPHILE_INSTANCE (a name that stays with the process across restarts, as DBOS's
 * executor id does), and releases those of its previous run before it starts.
 */
@Injectable()
export class GraphileCheckouts extends PeerEngine implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('GraphileCheckouts');
  private readonly instance = process.env.GRAPHILE_INSTANCE ?? 'local';
  private readonly silent = new GraphileLogger(() => () => undefined);
  private runner?: Runner;
  private pool?: Pool;

  constructor(
    private readonly steps: PeerSteps,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly connector: DatabaseConnector,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.connector.ready;
    const connectionString = this.database.url;
    await runMigrations({ connectionString, logger: this.silent });
    this.pool = new Pool({ connectionString, max: 1, application_name: 'graphile-lock-holders' });
    await this.pool.query(`CREATE SCHEMA IF NOT EXISTS peer_graphile`);
    await this.pool.query(
      `CREATE TABLE IF NOT EXISTS peer_graphile.lock_holders
         (instance text NOT NULL, worker_id text NOT NULL, PRIMARY KEY (instance, worker_id))`,
    );
    await this.releasePreviousRun(connectionString);

    const { concurrency, maxPoolSize, localQueueSize, completeJobBatchDelay } = settings();
    const events = new EventEmitter() as WorkerEvents;
    const holders: string[] = [];
    // A job may be locked before its holder is recorded (the pool fetches as soon as it exists),
    // but no step runs before: a death in a step always leaves locks the next run releases.
    let holdersRecorded!: () => void;
    const recorded = new Promise<void>((resolve) => (holdersRecorded = resolve));
    events.on('pool:create', ({ workerPool }) => holders.push(workerPool.id));
    events.on('worker:create', ({ worker }) => holders.push(worker.workerId));
    const taskList: TaskList = Object.fromEntries(
      STEPS.map((step) => [
        step,
        async (payload: unknown) => {
          await recorded;
          const { checkout, reason } = payload as StepJob;
          await this.steps.run(checkout, step, reason, (next) => this.enqueue(checkout, next));
        },
      ]),
    );
    this.runner = await run({
      connectionString,
      concurrency,
      maxPoolSize,
      noHandleSignals: true,
      logger: this.silent,
      events,
      taskList,
      preset: { worker: { localQueue: { size: localQueueSize }, completeJobBatchDelay } },
    });
    // Written as soon as they are known, before any step runs.
    await this.pool.query(
      `INSERT INTO peer_graphile.lock_holders (instance, worker_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
      [this.instance, holders],
    );
    holdersRecorded();
    this.logger.log(`graphile-worker runs: ${JSON.stringify(settings())}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
    await this.pool?.end();
  }

  start(checkout: NewCheckout): Promise<void> {
    return this.enqueue(peerCheckoutOf(checkout), { step: FIRST_STEP });
  }

  /** Adds the next step's job in the current transaction; an end adds nothing. */
  private async enqueue(checkout: PeerCheckout, next: Next): Promise<void> {
    if (!('step' in next)) return;
    const job: StepJob = { checkout, reason: next.reason };
    await this.txHost.tx.query(`SELECT graphile_worker.add_job($1::text, $2::json, job_key := $3::text)`, [
      next.step,
      JSON.stringify(job),
      `${checkout.id}:${next.step}`,
    ]);
  }

  /** Releases the jobs that this instance's previous run had locked when it died, then forgets its workers. */
  private async releasePreviousRun(connectionString: string): Promise<void> {
    const { rows } = await this.pool!.query<{ worker_id: string }>(
      `SELECT worker_id FROM peer_graphile.lock_holders WHERE instance = $1`,
      [this.instance],
    );
    if (rows.length === 0) return;
    const ids = rows.map((row) => row.worker_id);
    const utils = await makeWorkerUtils({ connectionString, logger: this.silent });
    try {
      await utils.forceUnlockWorkers(ids);
    } finally {
      await utils.release();
    }
    await this.pool!.query(`DELETE FROM peer_graphile.lock_holders WHERE instance = $1 AND worker_id = ANY($2)`, [
      this.instance,
      ids,
    ]);
  }
}
