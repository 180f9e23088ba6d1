import { Inject, Injectable, Logger } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import type { MessageContext } from '../../../infra/context/message-context';
import { describeError } from '../../../infra/errors';
import type { PeriodicTask } from '../../../infra/scheduling/periodic-task';
import { PeriodicTasks } from '../../../infra/scheduling/periodic-tasks';
import { traceScheduled } from '../../../infra/tracing/message.tracing';
import { ORCHESTRATED } from '../contracts';
import { CheckoutsRepository } from '../database/checkouts.repository';
import { SagasRepository } from './database/sagas.repository';
import { sagaConfig, type SagaConfig } from './saga.config';
import { Orchestrator } from './orchestrator';

/**
 * Finds sagas whose step has not been answered in time and tells each so. Every orchestrator
 * instance sweeps; each due saga is claimed with FOR UPDATE SKIP LOCKED, one per transaction, so
 * instances share the work, and a crashed one's sagas are simply swept by the others.
 */
@Injectable()
export class SagaDeadlines {
  private readonly logger = new Logger('SagaDeadlines');
  private readonly task: PeriodicTask;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService<MessageContext>,
    private readonly sagas: SagasRepository,
    private readonly checkouts: CheckoutsRepository,
    private readonly orchestrator: Orchestrator,
    tasks: PeriodicTasks,
    @Inject(sagaConfig.KEY) config: SagaConfig,
  ) {
    this.task = tasks.register('saga-deadlines', 'orchestrator', config.sweepIntervalMs, () => this.sweep());
  }

  /**
   * Handles every saga that is due now, each in its own transaction; returns how many. A saga
   * whose handling fails is left for the next sweep, and does not hold up the others.
   */
  async sweep(): Promise<number> {
    const failed: string[] = [];
    let handled = 0;
    while (!this.task.isStopped) {
      let claimed: string | undefined;
      try {
        const done = await this.cls.run({ ifNested: 'override' }, () =>
          this.txHost.withTransaction(async () => {
            claimed = await this.sagas.claimDue(failed);
            if (!claimed) return false;
            const checkout = await this.checkouts.find(claimed);
            this.cls.set('correlationId', checkout?.correlation_id ?? claimed);
            this.cls.set('headers', ORCHESTRATED);
            const sagaId = claimed;
            await traceScheduled(
              'saga deadline',
              await this.sagas.traceContextOf(sagaId),
              { 'app.checkout.id': sagaId },
              () => this.orchestrator.handle(sagaId, { type: 'deadline' }),
            );
            return true;
          }),
        );
        if (!done) return handled;
        handled += 1;
      } catch (error) {
        if (!claimed) throw error;
        failed.push(claimed);
        this.logger.warn(`The deadline of saga ${claimed} could not be handled, will retry: ${describeError(error)}`);
      }
    }
    return handled;
  }
}
