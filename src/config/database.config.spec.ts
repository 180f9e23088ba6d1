import { readDatabaseConfig } from './database.config';
import { InvalidEnvironmentError } from './env';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    readDatabaseConfig(env);
    return [];
  } catch (error) {
    return (error as InvalidEnvironmentError).problems;
  }
}

const POOLER = 'postgres://app@pgbouncer:6432/checkout';
const DIRECT = 'postgres://app@postgres:5432/checkout';

describe('The database settings', () => {
  it('when nothing is set, then session-bound work goes where everything goes, with no pooler', () => {
    expect(readDatabaseConfig({})).toMatchObject({
      url: 'postgres://postgres:postgres@localhost:5432/checkout',
      directUrl: 'postgres://postgres:postgres@localhost:5432/checkout',
      pooler: 'none',
    });
  });

  it('when a transaction-mode pooler is declared with a direct URL and no prepared statements, then both URLs are kept', () => {
    expect(
      readDatabaseConfig({
        DATABASE_URL: POOLER,
        DATABASE_DIRECT_URL: DIRECT,
        DATABASE_POOLER: 'transaction',
        DATABASE_PREPARED_STATEMENTS: 'false',
      }),
    ).toMatchObject({ url: POOLER, directUrl: DIRECT, pooler: 'transaction', preparedStatements: false });
  });

  it('when a transaction-mode pooler is declared without a direct URL, then the app refuses to start and says why', () => {
    expect(
      problemsOf({ DATABASE_URL: POOLER, DATABASE_POOLER: 'transaction', DATABASE_PREPARED_STATEMENTS: 'false' }),
    ).toEqual([expect.stringMatching(/^DATABASE_DIRECT_URL: must lead to Postgres itself .* LISTEN/)]);
    expect(
      problemsOf({
        DATABASE_URL: POOLER,
        DATABASE_DIRECT_URL: POOLER,
        DATABASE_POOLER: 'transaction',
        DATABASE_PREPARED_STATEMENTS: 'false',
      }),
    ).toEqual([expect.stringMatching(/^DATABASE_DIRECT_URL:/)]);
  });

  it('when a transaction-mode pooler is declared with prepared statements on, then the app refuses to start and says why', () => {
    expect(problemsOf({ DATABASE_URL: POOLER, DATABASE_DIRECT_URL: DIRECT, DATABASE_POOLER: 'transaction' })).toEqual([
      expect.stringMatching(/^DATABASE_PREPARED_STATEMENTS: must be false through a transaction-mode pooler/),
    ]);
  });

  it('when a session-mode pooler is declared, then nothing else is required', () => {
    expect(readDatabaseConfig({ DATABASE_URL: POOLER, DATABASE_POOLER: 'session' })).toMatchObject({
      directUrl: POOLER,
      pooler: 'session',
    });
  });

  it('when a production process is given a direct URL with a published password, then it refuses it as it does DATABASE_URL', () => {
    expect(
      problemsOf({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgres://app@pgbouncer:6432/checkout',
        DATABASE_DIRECT_URL: 'postgres://postgres:postgres@postgres:5432/checkout',
      }),
    ).toEqual([expect.stringMatching(/^DATABASE_DIRECT_URL: its password is one published/)]);
  });

  it('when the pooler or the direct URL is not one the app knows, then it says so', () => {
    expect(problemsOf({ DATABASE_POOLER: 'statement', DATABASE_DIRECT_URL: 'postgres://nowhere' })).toEqual([
      expect.stringMatching(/^DATABASE_DIRECT_URL: must be a postgres:\/\/ URL/),
      'DATABASE_POOLER: must be one of none, session, transaction',
    ]);
  });
});
