import { InvalidEnvironmentError } from './env';
import { readRedisConfig } from './redis.config';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    readRedisConfig(env);
    return [];
  } catch (error) {
    return (error as InvalidEnvironmentError).problems;
  }
}

describe('The Redis settings', () => {
  it('when nothing is set, then the app speaks to one server at redis://localhost:6379, without TLS', () => {
    expect(readRedisConfig({})).toMatchObject({
      topology: { kind: 'server', url: 'redis://localhost:6379' },
      tls: undefined,
    });
  });

  it('when REDIS_CLUSTER_NODES is set, then the app speaks to a cluster from those nodes, with the ACL user and TLS', () => {
    const config = readRedisConfig({
      REDIS_CLUSTER_NODES: 'redis-1:7000, 10.0.0.2:7001,[::1]:7002',
      REDIS_USERNAME: 'checkout',
      REDIS_PASSWORD: 'not-a-real-one',
      REDIS_TLS: 'true',
    });

    expect(config).toMatchObject({
      topology: {
        kind: 'cluster',
        nodes: [
          { host: 'redis-1', port: 7000 },
          { host: '10.0.0.2', port: 7001 },
          { host: '::1', port: 7002 },
        ],
      },
      username: 'checkout',
      password: 'not-a-real-one',
      tls: {},
    });
  });

  it('when REDIS_SENTINELS and REDIS_SENTINEL_MASTER are set, then the app asks those sentinels for that master', () => {
    expect(
      readRedisConfig({ REDIS_SENTINELS: 'sentinel-1:26379,sentinel-2:26379', REDIS_SENTINEL_MASTER: 'checkout' }),
    ).toMatchObject({
      topology: {
        kind: 'sentinel',
        master: 'checkout',
        sentinels: [
          { host: 'sentinel-1', port: 26379 },
          { host: 'sentinel-2', port: 26379 },
        ],
      },
    });
  });

  it('when REDIS_URL is rediss://, then TLS is on', () => {
    expect(readRedisConfig({ REDIS_URL: 'rediss://redis.internal:6380' }).tls).toEqual({});
  });

  it('when two topologies are set, then the app refuses to start and names the second', () => {
    expect(problemsOf({ REDIS_URL: 'redis://one:6379', REDIS_CLUSTER_NODES: 'two:7000' })).toEqual([
      'REDIS_CLUSTER_NODES: set only one of REDIS_URL, REDIS_CLUSTER_NODES and REDIS_SENTINELS',
    ]);
    expect(
      problemsOf({ REDIS_CLUSTER_NODES: 'two:7000', REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_MASTER: 'm' }),
    ).toEqual(['REDIS_SENTINELS: set only one of REDIS_URL, REDIS_CLUSTER_NODES and REDIS_SENTINELS']);
  });

  it('when REDIS_SENTINELS comes without its master name, or the name without sentinels, then the app names REDIS_SENTINEL_MASTER', () => {
    expect(problemsOf({ REDIS_SENTINELS: 's:26379' })).toEqual([
      'REDIS_SENTINEL_MASTER: must be set with REDIS_SENTINELS (the master group name they monitor)',
    ]);
    expect(problemsOf({ REDIS_SENTINEL_MASTER: 'checkout' })).toEqual([
      'REDIS_SENTINEL_MASTER: is used only with REDIS_SENTINELS',
    ]);
  });

  it('when an address, a flag or a file is wrong, then each problem names its variable, without the value', () => {
    const problems = problemsOf({
      REDIS_CLUSTER_NODES: 'redis-1:7000,cache-b',
      REDIS_TLS: 'perhaps',
      REDIS_TLS_CA_FILE: '/nonexistent/ca.pem',
      QUEUE_PREFIX: 'has spaces',
    });

    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
      'QUEUE_PREFIX',
      'REDIS_CLUSTER_NODES',
      'REDIS_TLS',
    ]);
    expect(problems.join(' ')).not.toContain('cache-b');
    expect(problemsOf({ REDIS_TLS_CA_FILE: '/nonexistent/ca.pem' })).toEqual(['REDIS_TLS_CA_FILE: cannot be read']);
  });

  it('when QUEUE_PREFIX is in braces (the one hash tag of before), then the braces are dropped: each queue gets its own tag', () => {
    expect(readRedisConfig({ QUEUE_PREFIX: '{checkout}' }).queuePrefix).toBe('checkout');
    expect(readRedisConfig({ QUEUE_PREFIX: 'checkout' }).queuePrefix).toBe('checkout');
  });
});
