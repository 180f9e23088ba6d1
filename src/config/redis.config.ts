import { ConfigType, registerAs } from '@nestjs/config';
import { IsOptional, Matches } from 'class-validator';
import { readEnv } from './env';

class RedisEnv {
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL, e.g. redis://localhost:6379' })
  REDIS_URL: string = 'redis://localhost:6379';
  /**
   * Names the deployment in every BullMQ key, so that several deployments (or test runs) can share
   * one Redis. Unset: derived from the database (see QueuePrefix). Each queue gets its own hash
   * tag from it; braces, which once made the prefix one tag, are accepted and dropped.
   */
  @IsOptional()
  @Matches(/^(\{[A-Za-z0-9_:-]{1,64}\}|[A-Za-z0-9_:-]{1,64})$/, {
    message: 'must be 1 to 64 letters, digits, -, _ or : (e.g. checkout)',
  })
  QUEUE_PREFIX?: string = undefined;
}

export const redisConfig = registerAs('redis', () => {
  const env = readEnv(RedisEnv);
  return { url: env.REDIS_URL, queuePrefix: env.QUEUE_PREFIX?.replace(/^\{(.*)\}$/, '$1') };
});
export type RedisConfig = ConfigType<typeof redisConfig>;
