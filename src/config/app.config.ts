import { ConfigType, registerAs } from '@nestjs/config';
import { ArrayMinSize, IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { EnvBoolean, EnvList, InvalidEnvironmentError, readEnv } from './env';
import { isProduction, publishedSecretProblem } from './published-secrets';
import { parseTrustProxy } from './trust-proxy';

export const APP_ROLES = ['api', 'relay', 'worker', 'orchestrator'] as const;
export type AppRole = (typeof APP_ROLES)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

class AppEnv {
  @IsInt() @Min(0) @Max(65535) PORT: number = 3000;
  @EnvList()
  @ArrayMinSize(1, { message: 'must name at least one role' })
  @IsIn(APP_ROLES, { each: true, message: `must be a comma-separated list of ${APP_ROLES.join(', ')}` })
  APP_ROLES: string[] = [...APP_ROLES];
  /** Unset: no operator surface (404). `generate`: the deployment's own, made once (OperatorToken). */
  @IsOptional()
  @IsString()
  @Matches(/^(generate|[\s\S]{16,})$/, { message: 'must be generate, or a token of at least 16 characters' })
  ADMIN_TOKEN?: string = undefined;
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) FAULT_INJECTION: boolean = false;
  @Matches(/^\d+(b|kb|mb)$/i, { message: 'must be a size such as 100kb or 1mb' }) HTTP_BODY_LIMIT: string = '100kb';
  @IsIn(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }) LOG_LEVEL: string = 'info';
  @IsInt() @Min(0) @Max(120_000) SHUTDOWN_GRACE_MS: number = 10_000;
  /** The proxies whose X-Forwarded-For names the client (Express's `trust proxy`); unset: none (see trust-proxy.ts). */
  @IsOptional() @IsString() TRUST_PROXY?: string = undefined;
}

/** ADMIN_TOKEN's value that asks the app for an operator token of the deployment's own (ADR 0067). */
export const GENERATED_ADMIN_TOKEN = 'generate';

/** The operator's token: none (no operator surface), the deployment's made one, or the one configured. */
export type AdminTokenSetting = { kind: 'none' } | { kind: 'generated' } | { kind: 'configured'; token: string };

export const appConfig = registerAs('app', () => {
  const env = readEnv(AppEnv);
  const generated = env.ADMIN_TOKEN === GENERATED_ADMIN_TOKEN;
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  const problems = [
    'problem' in trustProxy ? trustProxy.problem : undefined,
    publishedSecretProblem('ADMIN_TOKEN', env.ADMIN_TOKEN),
    env.FAULT_INJECTION && isProduction()
      ? 'FAULT_INJECTION: must not be true when NODE_ENV is production (a rule may crash the process); start a lab with NODE_ENV=development'
      : undefined,
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0 || 'problem' in trustProxy) throw new InvalidEnvironmentError(problems);
  const adminToken: AdminTokenSetting = generated
    ? { kind: 'generated' }
    : env.ADMIN_TOKEN
      ? { kind: 'configured', token: env.ADMIN_TOKEN }
      : { kind: 'none' };
  return {
    port: env.PORT,
    roles: new Set(env.APP_ROLES as AppRole[]),
    adminToken,
    faultInjection: env.FAULT_INJECTION,
    httpBodyLimit: env.HTTP_BODY_LIMIT,
    logLevel: env.LOG_LEVEL as (typeof LOG_LEVELS)[number],
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    trustProxy: trustProxy.value,
  };
});
export type AppConfig = ConfigType<typeof appConfig>;
