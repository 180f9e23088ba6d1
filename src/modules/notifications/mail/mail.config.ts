import { type ConfigType, registerAs } from '@nestjs/config';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { InvalidEnvironmentError, readEnv } from '../../../config/env';
import { publishedPasswordProblem } from '../../../config/published-secrets';

class MailEnv {
  /** Unset: emails are only logged and recorded. */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string = undefined;
  @IsString() @MaxLength(200) MAIL_FROM: string = 'Checkout <no-reply@checkout.local>';
}

export const mailConfig = registerAs('mail', () => {
  const env = readEnv(MailEnv);
  const published = publishedPasswordProblem('SMTP_URL', env.SMTP_URL);
  if (published) throw new InvalidEnvironmentError([published]);
  return { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM };
});
export type MailConfig = ConfigType<typeof mailConfig>;
