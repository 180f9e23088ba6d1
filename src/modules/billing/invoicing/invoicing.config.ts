import { type ConfigType, registerAs } from '@nestjs/config';
import { IsInt, Max, Min } from 'class-validator';
import { readEnv } from '../../../config/env';

class InvoicingEnv {
  /**
   * How long after its authorisation the fiscal authority cancels an invoice (the authority's
   * rule; SEFAZ's is usually 24 hours). A refund inside it cancels the invoice; after it, a return
   * note reverses it. Set it to the authority's: the lab and the tests shorten both.
   */
  @IsInt() @Min(1) @Max(30 * 24 * 3_600) INVOICE_CANCEL_WINDOW_SECONDS: number = 24 * 3_600;
}

export const invoicingConfig = registerAs('invoicing', () => {
  const env = readEnv(InvoicingEnv);
  return { cancelWindowMs: env.INVOICE_CANCEL_WINDOW_SECONDS * 1_000 };
});
export type InvoicingConfig = ConfigType<typeof invoicingConfig>;
