import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { DatabaseModule } from '../../infra/database/database.module';
import { AuthorizePaymentCommandHandler } from './authorize-payment/authorize-payment.command-handler';
import { AuthorizePayment } from './authorize-payment/authorize-payment.use-case';
import { AuthorizePaymentReaction } from './authorize-payment/authorize-payment.reaction';
import { BillingApi } from './billing.api';
import { CapturePaymentCommandHandler } from './capture-payment/capture-payment.command-handler';
import { CapturePayment } from './capture-payment/capture-payment.use-case';
import { CapturePaymentReaction } from './capture-payment/capture-payment.reaction';
import { CreateBillingSchema1795970000200 } from './database/migrations/1795970000200-create-billing-schema';
import { CreateBillingTables1795970002200 } from './database/migrations/1795970002200-create-billing-tables';
import { AttributeGatewayRequests1795970004200 } from './database/migrations/1795970004200-attribute-gateway-requests';
import { CreateBillingInvoices1795970010200 } from './database/migrations/1795970010200-create-billing-invoices';
import { DropGatewayRequests1795970011200 } from './database/migrations/1795970011200-drop-gateway-requests';
import { InvoicesRepository } from './database/invoices.repository';
import { PaymentIntentsRepository } from './database/payment-intents.repository';
import { PaymentsRepository } from './database/payments.repository';
import { PlansRepository } from './database/plans.repository';
import { CardGateway } from './gateway/card-gateway';
import { cardGatewayConfig, type CardGatewayConfig } from './gateway/card-gateway.config';
import { HttpCardGateway } from './gateway/http-card-gateway';
import { FiscalAuthority } from './invoicing/fiscal-authority';
import { fiscalAuthorityConfig, type FiscalAuthorityConfig } from './invoicing/fiscal-authority.config';
import { HttpFiscalAuthority } from './invoicing/http-fiscal-authority';
import { invoicingConfig } from './invoicing/invoicing.config';
import { IssueInvoiceCommandHandler } from './issue-invoice/issue-invoice.command-handler';
import { IssueInvoiceReaction } from './issue-invoice/issue-invoice.reaction';
import { IssueInvoice } from './issue-invoice/issue-invoice.use-case';
import { RefundPaymentController } from './refund-payment/refund-payment.controller';
import { RefundPayment } from './refund-payment/refund-payment.use-case';
import { ReverseInvoiceReaction } from './reverse-invoice/reverse-invoice.reaction';
import { ReverseInvoice } from './reverse-invoice/reverse-invoice.use-case';
import { VoidAuthorizationCommandHandler } from './void-authorization/void-authorization.command-handler';
import { VoidAuthorization } from './void-authorization/void-authorization.use-case';
import { VoidAuthorizationReaction } from './void-authorization/void-authorization.reaction';

/** Plans and their prices, payments and invoices, the card gateway and the fiscal authority. */
@Module({
  imports: [
    ConfigModule.forFeature(cardGatewayConfig),
    ConfigModule.forFeature(fiscalAuthorityConfig),
    ConfigModule.forFeature(invoicingConfig),
    DatabaseModule.forFeature({
      migrations: [
        CreateBillingSchema1795970000200,
        CreateBillingTables1795970002200,
        AttributeGatewayRequests1795970004200,
        CreateBillingInvoices1795970010200,
        DropGatewayRequests1795970011200,
      ],
    }),
  ],
  controllers: [RefundPaymentController],
  providers: [
    BillingApi,
    PlansRepository,
    PaymentsRepository,
    PaymentIntentsRepository,
    {
      provide: CardGateway,
      inject: [cardGatewayConfig.KEY],
      useFactory: (config: CardGatewayConfig) => new HttpCardGateway(config),
    },
    InvoicesRepository,
    {
      provide: FiscalAuthority,
      inject: [fiscalAuthorityConfig.KEY],
      useFactory: (config: FiscalAuthorityConfig) => new HttpFiscalAuthority(config),
    },
    AuthorizePayment,
    CapturePayment,
    IssueInvoice,
    ReverseInvoice,
    ReverseInvoiceReaction,
    VoidAuthorization,
    RefundPayment,
    AuthorizePaymentReaction,
    CapturePaymentReaction,
    IssueInvoiceReaction,
    VoidAuthorizationReaction,
    AuthorizePaymentCommandHandler,
    CapturePaymentCommandHandler,
    IssueInvoiceCommandHandler,
    VoidAuthorizationCommandHandler,
  ],
  exports: [BillingApi],
})
export class BillingModule {}
