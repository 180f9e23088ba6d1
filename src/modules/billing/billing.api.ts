import { Inject, Injectable } from '@nestjs/common';
import { Hooks } from '../../infra/hooks/hooks';
import type { StepRun } from '../../infra/steps';
import {
  AuthorizePayment,
  type AuthorizeOutcome,
  type AuthorizePaymentInput,
} from './authorize-payment/authorize-payment.use-case';
import { authorizePaymentStep } from './authorize-payment/authorize-payment.step';
import {
  CapturePayment,
  type CaptureOutcome,
  type CapturePaymentInput,
} from './capture-payment/capture-payment.use-case';
import { capturePaymentStep } from './capture-payment/capture-payment.step';
import { type Plan, PlansRepository } from './database/plans.repository';
import { type FiledInvoices, invoicesIn } from './domain/filed-invoices';
import { type FiledMoney, moneyIn } from './domain/filed-money';
import { CardGateway } from './gateway/card-gateway';
import { cardGatewayConfig, type CardGatewayConfig } from './gateway/card-gateway.config';
import { FiscalAuthority } from './invoicing/fiscal-authority';
import { fiscalAuthorityConfig, type FiscalAuthorityConfig } from './invoicing/fiscal-authority.config';
import { IssueInvoice, type IssueInvoiceInput, type IssueOutcome } from './issue-invoice/issue-invoice.use-case';
import { issueInvoiceStep } from './issue-invoice/issue-invoice.step';
import {
  VoidAuthorization,
  type VoidAuthorizationInput,
  type VoidOutcome,
} from './void-authorization/void-authorization.use-case';
import { voidAuthorizationStep } from './void-authorization/void-authorization.step';

/**
 * What other modules may ask billing. The checkout's steps are here too, for a checkout carried
 * by something other than this app's transport (the bench's peers): each runs in the caller's
 * transaction under the step's hooks, as the step runner runs it, and answers what it did.
 */
@Injectable()
export class BillingApi {
  constructor(
    private readonly plans: PlansRepository,
    private readonly hooks: Hooks,
    private readonly authorize: AuthorizePayment,
    private readonly capture: CapturePayment,
    private readonly invoice: IssueInvoice,
    private readonly voidAuthorizationUseCase: VoidAuthorization,
    private readonly gateway: CardGateway,
    private readonly authority: FiscalAuthority,
    @Inject(cardGatewayConfig.KEY) private readonly gatewayConfig: CardGatewayConfig,
    @Inject(fiscalAuthorityConfig.KEY) private readonly authorityConfig: FiscalAuthorityConfig,
  ) {}

  /** The services billing reaches over HTTP, by name: the card gateway and the fiscal authority. */
  get participants(): Array<{ name: string; url: string }> {
    return [
      { name: 'card-gateway', url: this.gatewayConfig.url },
      { name: 'fiscal-authority', url: this.authorityConfig.url },
    ];
  }

  /**
   * The money the card gateway holds, took and gave back under a reference (a checkout's id),
   * counted from its listing of what it filed there. An answer, or a throw: never "none" for a
   * look-up that went unanswered.
   */
  async moneyFiledUnder(reference: string): Promise<FiledMoney> {
    return moneyIn(await this.gateway.operationsFiledUnder(reference));
  }

  /**
   * The invoices the fiscal authority authorised under a reference (a checkout's id), and how many
   * still stand, from its listing. An answer, or a throw: never "none" for a look-up unanswered.
   */
  async invoicesFiledUnder(reference: string): Promise<FiledInvoices> {
    return invoicesIn(await this.authority.documentsFiledUnder(reference));
  }

  listPlans(): Promise<Plan[]> {
    return this.plans.list();
  }

  findPlan(id: string): Promise<Plan | undefined> {
    return this.plans.find(id);
  }

  authorizePayment(input: AuthorizePaymentInput): Promise<StepRun<AuthorizeOutcome>> {
    return this.hooks.step(authorizePaymentStep, () => this.authorize.execute(input));
  }

  capturePayment(input: CapturePaymentInput): Promise<StepRun<CaptureOutcome>> {
    return this.hooks.step(capturePaymentStep, () => this.capture.execute(input));
  }

  issueInvoice(input: IssueInvoiceInput): Promise<StepRun<IssueOutcome>> {
    return this.hooks.step(issueInvoiceStep, () => this.invoice.execute(input));
  }

  /** The authorization's compensation. */
  voidAuthorization(input: VoidAuthorizationInput): Promise<VoidOutcome> {
    return this.hooks.compensation(voidAuthorizationStep.name, () => this.voidAuthorizationUseCase.execute(input));
  }
}
