import { type ConfigType, registerAs } from '@nestjs/config';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { InvalidEnvironmentError, readEnv } from '../../../config/env';
import { publishedPasswordProblem } from '../../../config/published-secrets';

class MailEnv {
  /** Unset: emails are only logged and recorded. */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string = undefined;
  @IsString() @MaxLength(200) MAIL_FROM: string = 'Checkout <no-reply@checkout.local>';
  // The SMTP client's waits, each bounded: an email is handed over inside its delivery's open
  // transaction, which a silent server must not hold for nodemailer's defaults (2 min to connect,
  // 30 s for the greeting, 10 min of silence).
  /** To open the connection (the DNS lookup included). */
  @IsInt() @Min(100) @Max(120_000) SMTP_CONNECTION_TIMEOUT_MS: number = 5_000;
  /** For the server's greeting once connected. */
  @IsInt() @Min(100) @Max(120_000) SMTP_GREETING_TIMEOUT_MS: number = 5_000;
  /** Of silence from the server at any point of the conversation after that. */
  @IsInt() @Min(100) @Max(120_000) SMTP_SOCKET_TIMEOUT_MS: number = 10_000;
}

export const mailConfig = registerAs('mail', () => {
  const env = readEnv(MailEnv);
  const published = publishedPasswordProblem('SMTP_URL', env.SMTP_URL);
  if (published) throw new InvalidEnvironmentError([published]);
  return {
    smtpUrl: env.SMTP_URL,
    from: env.MAIL_FROM,
    smtpTimeouts: {
      connectionMs: env.SMTP_CONNECTION_TIMEOUT_MS,
      greetingMs: env.SMTP_GREETING_TIMEOUT_MS,
      socketMs: env.SMTP_SOCKET_TIMEOUT_MS,
    },
  };
});
export type MailConfig = ConfigType<typeof mailConfig>;
