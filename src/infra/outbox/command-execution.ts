import { Injectable, Logger } from '@nestjs/common';
import { Propagation, TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { describeError } from '../errors';
import type { MessageContract } from './message';
import { OutboxPublisher, type PublishOptions } from './outbox.publisher';

/** A message to publish as the answer to a command, checked against its contract when made. */
export interface Answer {
  contract: MessageContract;
  payload: object;
}

export const answer = <P extends object>(contract: MessageContract<P>, payload: P): Answer => ({
  contract: contract as MessageContract,
  payload,
});

/**
 * How a participant carries out a command from an orchestrator: the work runs in a savepoint of
 * the delivery's transaction and returns its answer, which is published with it. If the work
 * throws, its writes are undone and `failure` answers instead, in the same transaction as the
 * inbox row, so that the orchestrator (which knows the process) decides whether to retry, undo or
 * ask a person. Reactions in a choreography have no one to tell: their errors go to the
 * transport's retries instead.
 */
@Injectable()
export class CommandExecution {
  private readonly logger = new Logger('CommandExecution');

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxPublisher,
  ) {}

  async execute(
    options: PublishOptions,
    work: () => Promise<Answer | undefined>,
    failure: (error: string) => Answer,
  ): Promise<void> {
    try {
      await this.txHost.withTransaction(Propagation.Nested, async () => {
        const reply = await work();
        if (reply) await this.outbox.publish(reply.contract, reply.payload, options);
      });
    } catch (error) {
      this.logger.warn(`A command failed; its sender is told: ${describeError(error)}`);
      const reply = failure(describeError(error));
      await this.outbox.publish(reply.contract, reply.payload, options);
    }
  }
}
