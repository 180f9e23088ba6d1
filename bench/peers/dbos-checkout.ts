import { DBOS } from '@dbos-inc/dbos-sdk';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { DataSource } from 'typeorm';
import { databaseConfig, type DatabaseConfig } from '../../src/config/database.config';
import { DatabaseConnector } from '../../src/infra/database/database.connector';
import { describeError } from '../../src/infra/errors';
import { Faults } from '../../src/infra/faults/faults';
import type { CheckoutRow, NewCheckout } from '../../src/modules/checkout';
import { AfterCommit } from './after-commit';
import { FIRST_STEP, type FinalStatus, type Next, type PeerCheckout, type PeerStep } from './checkout-flow';
import { PeerEngine, peerCheckoutOf } from './peer-engine';
import { PeerSteps } from './peer-steps';

/** Where a DBOS checkout can be killed between our commit and its workflow's start. */
export const BEFORE_WORKFLOW_START = 'peer:dbos.before-workflow-start';

let steps: PeerSteps | undefined;

/**
 * The orchestrated checkout as a DBOS Transact workflow: plain code, each step a DBOS step whose
 * result DBOS checkpoints in Postgres (the system database, here the app's own, schema `dbos`)
 * once it returns. A process that dies mid-checkout resumes it when it starts again (DBOS's
 * recovery of its executor's pending workflows), replaying the checkpointed steps and running the
 * first one without a checkpoint again: the participants' operations are idempotent by their key,
 * so a step that had committed answers what it did.
 */
const checkoutWorkflow = DBOS.registerWorkflow(
  async (checkout: PeerCheckout): Promise<FinalStatus> => {
    let next: Next = { step: FIRST_STEP };
    while ('step' in next) {
      const { step, reason }: { step: PeerStep; reason?: string } = next;
      next = await DBOS.runStep((): Promise<Next> => steps!.run(checkout, step, reason), {
        name: step,
        // A step that throws (a deadlock, Postgres out of reach) is tried again, with backoff.
        retriesAllowed: true,
        intervalSeconds: 0.2,
        backoffRate: 2,
        maxAttempts: 10,
      });
    }
    return next.end;
  },
  { name: 'checkout' },
);

/**
 * DBOS in the app's process: launched once the database is ready, it recovers the workflows this
 * executor (DBOS_EXECUTOR_ID, `local` by default) left pending. A checkout is committed by our
 * request's transaction; its workflow is started right after the commit (DBOS writes it in its
 * own connection, so it cannot join the transaction), under the checkout's id, before the request
 * answers. A process killed between the two leaves a PENDING checkout with no workflow: the sweep
 * starts those, at launch and then every SWEEP_MS, a workflow id making a second start harmless.
 */
@Injectable()
export class DbosCheckouts extends PeerEngine implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DbosCheckouts');
  private afterCommit?: AfterCommit;
  private sweeper?: NodeJS.Timeout;
  private static readonly SWEEP_MS = 10_000;
  /** A checkout younger than this may still be on its way to its workflow. */
  private static readonly ORPHAN_AFTER_MS = 30_000;

  constructor(
    peerSteps: PeerSteps,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly connector: DatabaseConnector,
    private readonly faults: Faults,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
    private readonly dataSource: DataSource,
  ) {
    super();
    steps = peerSteps;
    this.faults.declare({
      point: BEFORE_WORKFLOW_START,
      actions: ['crash'],
      description: 'DBOS peer: its process dies after the checkout commits, before its workflow starts',
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.connector.ready;
    // Once the data source is initialised: initialising it sets its list of subscribers anew.
    this.afterCommit = new AfterCommit(this.dataSource);
    DBOS.setConfig({
      name: 'checkout-peer',
      systemDatabaseUrl: this.database.url,
      systemDatabasePoolSize: Number(process.env.DBOS_SYSTEM_POOL_SIZE ?? 10),
      executorID: process.env.DBOS_EXECUTOR_ID ?? 'local',
      // Nothing leaves the process: no traces or logs exported, no Conductor (no key is given).
      enableOTLP: false,
      tracingEnabled: false,
      logLevel: 'warn',
    });
    await DBOS.launch();
    await this.startOrphans(0);
    this.sweeper = setInterval(() => {
      this.startOrphans(DbosCheckouts.ORPHAN_AFTER_MS).catch((error: unknown) =>
        this.logger.warn(`Sweep of checkouts without a workflow failed: ${describeError(error)}`),
      );
    }, DbosCheckouts.SWEEP_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    await DBOS.shutdown();
  }

  start(checkout: NewCheckout): Promise<void> {
    if (!this.afterCommit) throw new Error('DBOS has not been launched yet');
    this.afterCommit.add(this.txHost.tx.queryRunner, async () => {
      this.faults.failIfInjected(BEFORE_WORKFLOW_START);
      await DBOS.startWorkflow(checkoutWorkflow, { workflowID: checkout.id })(peerCheckoutOf(checkout));
    });
    return Promise.resolve();
  }

  /** Starts the workflow of every PENDING checkout older than `olderThanMs` that has none. */
  private async startOrphans(olderThanMs: number): Promise<void> {
    const rows = await this.txHost.withTransaction(() =>
      this.txHost.tx.query<CheckoutRow[]>(
        `SELECT * FROM checkout.checkouts
          WHERE status = 'PENDING' AND created_at < clock_timestamp() - $1 * interval '1 millisecond'`,
        [olderThanMs],
      ),
    );
    let started = 0;
    for (const row of rows) {
      if (await DBOS.getWorkflowStatus(row.id)) continue;
      await DBOS.startWorkflow(checkoutWorkflow, { workflowID: row.id })(peerCheckoutOf(row));
      started += 1;
    }
    if (started > 0) this.logger.warn(`Started ${started} checkout workflow(s) that a crash had left unstarted`);
  }
}
