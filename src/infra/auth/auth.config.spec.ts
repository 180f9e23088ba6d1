import { InvalidEnvironmentError } from '../../config/env';
import { authConfig } from './auth.config';

/** Runs `read` with these variables set (undefined: unset), then puts the environment back. */
async function withEnv<T>(vars: Record<string, string | undefined>, read: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) =>
    Object.entries(values).forEach(([name, value]) =>
      value === undefined ? delete process.env[name] : (process.env[name] = value),
    );
  apply(vars);
  try {
    return await read();
  } finally {
    apply(saved);
  }
}

const problemsOf = async (env: Record<string, string | undefined>): Promise<string[]> =>
  withEnv(env, async () => {
    try {
      authConfig();
      return [];
    } catch (error) {
      return (error as InvalidEnvironmentError).problems;
    }
  });

describe('authConfig', () => {
  it('when NODE_ENV is production and AUTH_TOKEN_SECRET is not set, then the deployment secret signs the tokens', async () => {
    const config = await withEnv({ NODE_ENV: 'production', AUTH_TOKEN_SECRET: undefined }, async () => authConfig());

    expect(config).toMatchObject({ tokenSecret: undefined, tokenTtlSeconds: 720 * 3_600 });
  });

  it('when the secret is shorter than 32 characters, then the app refuses to start, without echoing it', async () => {
    const problems = await problemsOf({ AUTH_TOKEN_SECRET: 'short-secret' });

    expect(problems).toEqual(['AUTH_TOKEN_SECRET: must be at least 32 characters']);
  });

  it.each(['change-me-local-token-secret-0123456789', 'dev-only-token-secret-anyone-can-read-it-in-the-sources'])(
    'when NODE_ENV is production and the secret is the published %s, then the app refuses to start, naming it',
    async (published) => {
      const problems = await problemsOf({ NODE_ENV: 'production', AUTH_TOKEN_SECRET: published });

      expect(problems).toEqual([expect.stringMatching(/^AUTH_TOKEN_SECRET: is a value published in the repository/)]);
      expect(problems.join()).not.toContain(published);
    },
  );

  it('when a published secret is used outside production, then it is taken (the tests sign with one)', async () => {
    expect(
      await problemsOf({ NODE_ENV: undefined, AUTH_TOKEN_SECRET: 'change-me-local-token-secret-0123456789' }),
    ).toEqual([]);
  });
});
