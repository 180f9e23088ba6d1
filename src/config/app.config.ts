import { ConfigType, registerAs } from '@nestjs/config';
import {
  ArrayMinSize,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';
import { EnvBoolean, EnvList, readEnv } from './env';

export const APP_ROLES = ['api', 'relay', 'worker', 'orchestrator'] as const;
export type AppRole = (typeof APP_ROLES)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

class AppEnv {
  @IsInt() @Min(0) @Max(65535) PORT: number = 3000;
  @EnvList()
  @ArrayMinSize(1, { message: 'must name at least one role' })
  @IsIn(APP_ROLES, { each: true, message: `must be a comma-separated list of ${APP_ROLES.join(', ')}` })
  APP_ROLES: string[] = [...APP_ROLES];
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  ADMIN_TOKEN?: string = undefined;
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) FAULT_INJECTION: boolean = false;
  @Matches(/^\d+(b|kb|mb)$/i, { message: 'must be a size such as 100kb or 1mb' }) HTTP_BODY_LIMIT: string = '100kb';
  @IsIn(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }) LOG_LEVEL: string = 'info';
  @IsInt() @Min(0) @Max(120_000) SHUTDOWN_GRACE_MS: number = 10_000;
}

export const appConfig = registerAs('app', () => {
  const env = readEnv(AppEnv);
  return {
    port: env.PORT,
    roles: new Set(env.APP_ROLES as AppRole[]),
    adminToken: env.ADMIN_TOKEN,
    faultInjection: env.FAULT_INJECTION,
    httpBodyLimit: env.HTTP_BODY_LIMIT,
    logLevel: env.LOG_LEVEL as (typeof LOG_LEVELS)[number],
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
  };
});
export type AppConfig = ConfigType<typeof appConfig>;
