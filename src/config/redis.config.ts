import { ConfigType, registerAs } from '@nestjs/config';
import { IsBoolean, IsOptional, IsString, Length, Matches } from 'class-validator';
import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { EnvBoolean, EnvList, InvalidEnvironmentError, readEnv } from './env';
import { publishedPasswordProblem, publishedSecretProblem } from './published-secrets';

const HOST_PORT = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/;
const HOST_PORT_MESSAGE = 'must be a comma-separated list of host:port, e.g. redis-1:6379,redis-2:6379';

class RedisEnv {
  /** One Redis server. The default when neither REDIS_CLUSTER_NODES nor REDIS_SENTINELS is set. */
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL, e.g. redis://localhost:6379' })
  REDIS_URL: string = 'redis://localhost:6379';
  /** A Redis Cluster: some of its nodes, from which the client learns the others. */
  @IsOptional()
  @EnvList()
  @Matches(HOST_PORT, { each: true, message: HOST_PORT_MESSAGE })
  REDIS_CLUSTER_NODES?: string[] = undefined;
  /** Redis Sentinel: the sentinels, which tell the client where REDIS_SENTINEL_MASTER's master is now. */
  @IsOptional()
  @EnvList()
  @Matches(HOST_PORT, { each: true, message: HOST_PORT_MESSAGE })
  REDIS_SENTINELS?: string[] = undefined;
  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be the master group name the sentinels monitor, e.g. mymaster' })
  REDIS_SENTINEL_MASTER?: string = undefined;
  /** An ACL user and its password for the data nodes (for REDIS_URL, they may be in the URL instead). */
  @IsOptional() @IsString() @Length(1, 256) REDIS_USERNAME?: string = undefined;
  @IsOptional() @IsString() @Length(1, 512) REDIS_PASSWORD?: string = undefined;
  /** The sentinels' own credentials, when they require some. */
  @IsOptional() @IsString() @Length(1, 256) REDIS_SENTINEL_USERNAME?: string = undefined;
  @IsOptional() @IsString() @Length(1, 512) REDIS_SENTINEL_PASSWORD?: string = undefined;
  /** TLS to every Redis node (and sentinel); a rediss:// REDIS_URL turns it on too. */
  @EnvBoolean() @IsBoolean({ message: 'must be true or false' }) REDIS_TLS: boolean = false;
  /** A CA bundle (PEM) to trust besides the system's, for servers with a private CA. */
  @IsOptional() @IsString() REDIS_TLS_CA_FILE?: string = undefined;
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

export interface RedisAddress {
  host: string;
  port: number;
}

/** Where the app's Redis is: exactly one of these. */
export type RedisTopology =
  | { kind: 'server'; url: string }
  | { kind: 'cluster'; nodes: RedisAddress[] }
  | { kind: 'sentinel'; sentinels: RedisAddress[]; master: string };

const addressOf = (text: string): RedisAddress => {
  const at = text.lastIndexOf(':');
  return { host: text.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(text.slice(at + 1)) };
};

/** Reads and checks the Redis settings; `env` is for tests. */
export function readRedisConfig(env: NodeJS.ProcessEnv = process.env) {
  const values = readEnv(RedisEnv, env);
  const given = (name: string) => env[name] !== undefined && env[name] !== '';
  const problems: string[] = [];
  const topologies = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'].filter(given);
  if (topologies.length > 1) {
    problems.push(`${topologies[1]}: set only one of REDIS_URL, REDIS_CLUSTER_NODES and REDIS_SENTINELS`);
  }
  if (given('REDIS_SENTINELS') !== given('REDIS_SENTINEL_MASTER')) {
    problems.push(
      given('REDIS_SENTINELS')
        ? 'REDIS_SENTINEL_MASTER: must be set with REDIS_SENTINELS (the master group name they monitor)'
        : 'REDIS_SENTINEL_MASTER: is used only with REDIS_SENTINELS',
    );
  }
  for (const name of ['REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const) {
    if (given(name) && (values[name] ?? []).length === 0) problems.push(`${name}: ${HOST_PORT_MESSAGE}`);
  }
  let ca: Buffer | undefined;
  if (values.REDIS_TLS_CA_FILE) {
    try {
      ca = readFileSync(values.REDIS_TLS_CA_FILE);
    } catch {
      problems.push('REDIS_TLS_CA_FILE: cannot be read');
    }
  }
  problems.push(
    ...[
      given('REDIS_URL') ? publishedPasswordProblem('REDIS_URL', values.REDIS_URL, env) : undefined,
      publishedSecretProblem('REDIS_PASSWORD', values.REDIS_PASSWORD, env),
      publishedSecretProblem('REDIS_SENTINEL_PASSWORD', values.REDIS_SENTINEL_PASSWORD, env),
    ].filter((problem) => problem !== undefined),
  );
  if (problems.length > 0) throw new InvalidEnvironmentError(problems);

  const topology: RedisTopology = values.REDIS_CLUSTER_NODES?.length
    ? { kind: 'cluster', nodes: values.REDIS_CLUSTER_NODES.map(addressOf) }
    : values.REDIS_SENTINELS?.length
      ? { kind: 'sentinel', sentinels: values.REDIS_SENTINELS.map(addressOf), master: values.REDIS_SENTINEL_MASTER! }
      : { kind: 'server', url: values.REDIS_URL };
  const tlsOn = values.REDIS_TLS || (topology.kind === 'server' && topology.url.startsWith('rediss:'));
  const tls: TlsOptions | undefined = tlsOn ? (ca ? { ca } : {}) : undefined;
  return {
    topology,
    username: values.REDIS_USERNAME,
    password: values.REDIS_PASSWORD,
    sentinelUsername: values.REDIS_SENTINEL_USERNAME,
    sentinelPassword: values.REDIS_SENTINEL_PASSWORD,
    tls,
    queuePrefix: values.QUEUE_PREFIX?.replace(/^\{(.*)\}$/, '$1'),
  };
}

export const redisConfig = registerAs('redis', () => readRedisConfig());
export type RedisConfig = ConfigType<typeof redisConfig>;
