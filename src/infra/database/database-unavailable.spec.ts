import { QueryFailedError, QueryRunnerAlreadyReleasedError, TypeORMError } from 'typeorm';
import { isDatabaseUnavailable } from './database-unavailable';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['TypeORM before the first connection', new TypeORMError('Driver not Connected')],
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    [
      'a refused connection on every address',
      new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')]),
    ],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    ['a server shutting down', new QueryFailedError('SELECT 1', [], withCode('terminating connection', '57P01'))],
    ['a full pool that cannot connect', new Error('timeout exceeded when trying to connect')],
    ['a transaction whose connection broke between statements', new QueryRunnerAlreadyReleasedError()],
  ])('when the error is %s, then it is', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', new QueryFailedError('INSERT', [], withCode('duplicate key', '23505'))],
    ['a syntax error', new QueryFailedError('SELEC 1', [], withCode('syntax error', '42601'))],
    ['any other error', new TypeError('x is undefined')],
    ['not an error', 'ECONNREFUSED'],
  ])('when the error is %s, then it is not', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
