import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import type { SagaCommandPayload } from '../../checkout/contracts';
import { IssueInvoiceCommand } from '../contracts';
import { IssueInvoice } from './issue-invoice.use-case';
import { issueInvoiceStep } from './issue-invoice.step';

/** Orchestration: invoice the sale on command; a failure is told, and the orchestrator retries. */
@Injectable()
export class IssueInvoiceCommandHandler {
  constructor(
    private readonly issueInvoice: IssueInvoice,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(IssueInvoiceCommand.type)
  @Consumer('billing.issue-invoice-command')
  handle(command: SagaCommandPayload): Promise<void> {
    return this.steps.command(issueInvoiceStep, command, () => this.issueInvoice.execute(command));
  }
}
