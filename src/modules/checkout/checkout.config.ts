import { type ConfigType, registerAs } from '@nestjs/config';
import { IsIn } from 'class-validator';
import { readEnv } from '../../config/env';

export const CHECKOUT_MODES = ['choreography', 'orchestration'] as const;
export type CheckoutMode = (typeof CHECKOUT_MODES)[number];

class CheckoutEnv {
  @IsIn(CHECKOUT_MODES, { message: `must be one of ${CHECKOUT_MODES.join(', ')}` })
  CHECKOUT_MODE: string = 'choreography';
}

export const checkoutConfig = registerAs('checkout', () => {
  const env = readEnv(CheckoutEnv);
  return { defaultMode: env.CHECKOUT_MODE as CheckoutMode };
});
export type CheckoutConfig = ConfigType<typeof checkoutConfig>;
