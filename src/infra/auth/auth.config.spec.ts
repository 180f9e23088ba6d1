import { InvalidEnvironmentError } from '../../config/env';
import { authConfig, DEV_TOKEN_SECRET } from './auth.config';

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
  it('when NODE_ENV is production and AUTH_TOKEN_SECRET is not set, then the app refuses to start, naming it', async () => {
    expect(await problemsOf({ NODE_ENV: 'production', AUTH_TOKEN_SECRET: undefined })).toEqual([
      'AUTH_TOKEN_SECRET: must be set when NODE_ENV is production',
    ]);
  });

  it('when the secret is shorter than 32 characters, then the app refuses to start, without echoing it', async () => {
    const problems = await problemsOf({ AUTH_TOKEN_SECRET: 'short-secret' });

    expect(problems).toEqual(['AUTH_TOKEN_SECRET: must be at least 32 characters']);
  });

  it('when no secret is set outside production, then the development secret is used and said to be', async () => {
    const config = await withEnv({ NODE_ENV: undefined, AUTH_TOKEN_SECRET: undefined }, async () => authConfig());

    expect(config).toMatchObject({ tokenSecret: DEV_TOKEN_SECRET, usesDevSecret: true, tokenTtlSeconds: 720 * 3_600 });
  });
});
