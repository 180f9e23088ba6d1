import { appConfig } from './app.config';
import type { InvalidEnvironmentError } from './env';

function loaded(env: Record<string, string | undefined>): ReturnType<typeof appConfig> | string[] {
  const saved = { ...process.env };
  Object.entries(env).forEach(([name, value]) =>
    value === undefined ? delete process.env[name] : (process.env[name] = value),
  );
  try {
    return appConfig();
  } catch (error) {
    return (error as InvalidEnvironmentError).problems;
  } finally {
    process.env = saved;
  }
}

describe('appConfig', () => {
  it('when NODE_ENV is production and FAULT_INJECTION is true, then the app refuses to start, naming it', () => {
    expect(loaded({ NODE_ENV: 'production', FAULT_INJECTION: 'true', ADMIN_TOKEN: undefined })).toEqual([
      expect.stringMatching(/^FAULT_INJECTION: must not be true when NODE_ENV is production/),
    ]);
  });

  it('when NODE_ENV is production and ADMIN_TOKEN is the example one, then the app refuses to start, naming it', () => {
    expect(
      loaded({ NODE_ENV: 'production', FAULT_INJECTION: undefined, ADMIN_TOKEN: 'change-me-local-admin-token' }),
    ).toEqual([expect.stringMatching(/^ADMIN_TOKEN: is a value published in the repository/)]);
  });

  it('when ADMIN_TOKEN is generate, then the operator token is the deployment’s own', () => {
    expect(loaded({ NODE_ENV: 'production', ADMIN_TOKEN: 'generate', FAULT_INJECTION: undefined })).toMatchObject({
      adminToken: { kind: 'generated' },
      faultInjection: false,
    });
  });

  it('when ADMIN_TOKEN is short and not generate, then the app refuses to start', () => {
    expect(loaded({ ADMIN_TOKEN: 'short' })).toEqual([
      'ADMIN_TOKEN: must be generate, or a token of at least 16 characters',
    ]);
  });

  it('when fault injection is on outside production, then it is on', () => {
    expect(loaded({ NODE_ENV: 'development', FAULT_INJECTION: 'true', ADMIN_TOKEN: undefined })).toMatchObject({
      adminToken: { kind: 'none' },
      faultInjection: true,
    });
  });
});

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['1', 1],
    ['2', 2],
    ['loopback', ['loopback']],
    ['loopback, 10.0.0.0/8 ,fd00::/8', ['loopback', '10.0.0.0/8', 'fd00::/8']],
    ['192.0.2.10,10.0.0.0/255.0.0.0', ['192.0.2.10', '10.0.0.0/255.0.0.0']],
    ['::1', ['::1']],
    ['fc00::/7, 172.16.0.0/12', ['fc00::/7', '172.16.0.0/12']],
    ['::ffff:10.0.0.0/104', ['::ffff:10.0.0.0/104']],
  ])('when it is %p, then the app trusts %p', (value, trusted) => {
    expect(loaded({ TRUST_PROXY: value, ADMIN_TOKEN: undefined, NODE_ENV: 'development' })).toMatchObject({
      trustProxy: trusted,
    });
  });

  it.each([
    'true',
    '0',
    '33',
    'proxy.example.com',
    '10.0.0.0/33',
    '::1/129',
    '10.0.0.1/8/8',
    'loopback,1',
    '10.0.0.0/ffff::',
  ])('when it is %p, then the app refuses to start with one line naming TRUST_PROXY', (value) => {
    const problems = loaded({ TRUST_PROXY: value, ADMIN_TOKEN: undefined, NODE_ENV: 'development' });
    expect(problems).toEqual([expect.stringMatching(/^TRUST_PROXY: must be a hop count/)]);
  });

  it.each([
    '0.0.0.0/0',
    '0.0.0.0/00',
    '0.0.0.0/0.0.0.0',
    '::/0',
    '::0/0',
    '::ffff:0.0.0.0/96',
    '::ffff:0:0/96',
    'loopback, 0.0.0.0/0',
    // Two halves of the addresses are every address.
    '0.0.0.0/1,128.0.0.0/1',
    '2000::/3',
  ])('when it is %p, a range that takes in the clients, then the app refuses it as it refuses true', (value) => {
    const problems = loaded({ TRUST_PROXY: value, ADMIN_TOKEN: undefined, NODE_ENV: 'development' });
    expect(problems).toEqual([
      expect.stringMatching(/^TRUST_PROXY: must be a hop count.*; ".*" is wider than .* any client name itself\)$/),
    ]);
  });

  it('when a netmask is not a run of ones, then the app refuses it (Express would throw at start)', () => {
    const problems = loaded({ TRUST_PROXY: '10.0.0.0/255.0.255.0', ADMIN_TOKEN: undefined, NODE_ENV: 'development' });
    expect(problems).toEqual([expect.stringMatching(/^TRUST_PROXY: must be a hop count/)]);
  });
});
