import { HealthIndicatorService } from '@nestjs/terminus';
import type { RedisConfig } from '../../src/config/redis.config';
import { RedisHealthIndicator } from '../../src/infra/health/health.indicators';
import { RedisConnections } from '../../src/infra/redis/redis.connections';
import { TEST_REDIS_URL } from '../support/test-env';

describe("The health check's Redis indicator", () => {
  const opened: RedisConnections[] = [];

  /** The indicator as the app makes it: its connection opened, and not yet ready. */
  const indicatorFor = (url: string) => {
    const connections = new RedisConnections({ topology: { kind: 'server', url } } as RedisConfig);
    opened.push(connections);
    return new RedisHealthIndicator(new HealthIndicatorService(), connections);
  };

  afterEach(() => Promise.all(opened.splice(0).map((connections) => connections.onApplicationShutdown())));

  it('when its connection is still being made (the app just started), then it waits for it and answers up', async () => {
    const result = await indicatorFor(TEST_REDIS_URL).check();

    expect(result).toMatchObject({ redis: { status: 'up' } });
  });

  it('when Redis does not answer, then it answers down', async () => {
    const result = await indicatorFor('redis://127.0.0.1:1').check();

    expect(result).toMatchObject({ redis: { status: 'down' } });
  });
});
