import type { InvalidEnvironmentError } from '../../config/env';
import { metricsConfig } from './metrics.config';

function loaded(env: Record<string, string | undefined>): ReturnType<typeof metricsConfig> | string[] {
  const saved = { ...process.env };
  Object.entries(env).forEach(([name, value]) =>
    value === undefined ? delete process.env[name] : (process.env[name] = value),
  );
  try {
    return metricsConfig();
  } catch (error) {
    return (error as InvalidEnvironmentError).problems;
  } finally {
    process.env = saved;
  }
}

const NONE = { METRICS_TOKEN: undefined, METRICS_PORT: undefined, METRICS_READ_INTERVAL_MS: undefined };

describe('metricsConfig', () => {
  it('when nothing is set, then anyone scrapes the API port, and figures are read at most every 5 s', () => {
    expect(loaded(NONE)).toEqual({ token: undefined, port: undefined, readIntervalMs: 5_000 });
  });

  it('when a token, a port and an interval are set, then they are taken', () => {
    expect(
      loaded({ METRICS_TOKEN: 'a-scraper-token-of-my-own', METRICS_PORT: '9464', METRICS_READ_INTERVAL_MS: '0' }),
    ).toEqual({ token: 'a-scraper-token-of-my-own', port: 9464, readIntervalMs: 0 });
  });

  it('when the token is short or the port is not one, then the app refuses to start, naming each', () => {
    expect(loaded({ ...NONE, METRICS_TOKEN: 'short', METRICS_PORT: '70000' })).toEqual([
      'METRICS_TOKEN: must be at least 16 characters',
      expect.stringMatching(/^METRICS_PORT: /),
    ]);
  });

  it('when NODE_ENV is production and the token is one the repository publishes, then the app refuses to start, naming it', () => {
    expect(loaded({ ...NONE, NODE_ENV: 'production', METRICS_TOKEN: 'test-admin-token-0123456789' })).toEqual([
      expect.stringMatching(/^METRICS_TOKEN: is a value published in the repository/),
    ]);
  });
});
