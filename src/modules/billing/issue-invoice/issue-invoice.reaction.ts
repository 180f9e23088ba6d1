import { Injectable } from '@nestjs/common';
import { Consumer, OnEvent } from '../../../infra/outbox';
import { StepRunner } from '../../../infra/steps';
import { CHOREOGRAPHED, stepKey } from '../../checkout/contracts';
import { AccessActivated, type AccessGrantedPayload } from '../../content/contracts';
import { IssueInvoice } from './issue-invoice.use-case';
import { issueInvoiceStep } from './issue-invoice.step';

/**
 * Choreography: the money is taken and the access is the buyer's, so the sale is invoiced. An
 * authority down for hours is waited out, the waits the transport's for such a consumer, as the
 * saga's for its row (`waitsOutOutages`); then a dead letter asks a person.
 */
@Injectable()
export class IssueInvoiceReaction {
  constructor(
    private readonly issueInvoice: IssueInvoice,
    private readonly steps: StepRunner,
  ) {}

  @OnEvent(AccessActivated.type)
  @Consumer('billing.issue-invoice', { where: CHOREOGRAPHED, waitsOutOutages: true })
  async onAccessActivated({ checkoutId }: AccessGrantedPayload): Promise<void> {
    const input = { checkoutId, idempotencyKey: stepKey(checkoutId, issueInvoiceStep.name) };
    await this.steps.react(issueInvoiceStep, input, () => this.issueInvoice.execute(input));
  }
}
