import type { InvalidEnvironmentError } from '../../../config/env';
import { fiscalAuthorityConfig } from './fiscal-authority.config';

describe('The fiscal authority settings', () => {
  /** The settings as the app reads them from `env` (and only from it), or the problems it names. */
  const read = (env: NodeJS.ProcessEnv) => {
    jest.replaceProperty(process, 'env', env);
    try {
      return fiscalAuthorityConfig();
    } catch (error) {
      return { problems: (error as InvalidEnvironmentError).problems };
    }
  };
  afterEach(() => jest.restoreAllMocks());

  it('when nothing is set, then the service is reached at its own default address, with bounded calls', () => {
    expect(read({})).toEqual({ url: 'http://127.0.0.1:4020', timeoutMs: 5_000, attempts: 3, backoffMs: 100 });
  });

  it('when FISCAL_AUTHORITY_URL is set, then the service is reached there, without a trailing slash', () => {
    expect(
      read({ FISCAL_AUTHORITY_URL: 'http://fiscal-authority:4020/', FISCAL_AUTHORITY_BACKOFF_MS: '50' }),
    ).toMatchObject({ url: 'http://fiscal-authority:4020', backoffMs: 50 });
  });

  it('when a value is wrong, then each is named by its full name, and a URL in a message stays a URL', () => {
    expect(
      read({
        FISCAL_AUTHORITY_URL: 'fiscal-authority:4020',
        FISCAL_AUTHORITY_TIMEOUT_MS: '10',
        FISCAL_AUTHORITY_ATTEMPTS: '11',
        FISCAL_AUTHORITY_BACKOFF_MS: '1',
        FISCAL_AUTHORITY_BACKOFF_MS_FILE: '/run/secrets/backoff',
      }),
    ).toEqual({
      problems: [
        'FISCAL_AUTHORITY_BACKOFF_MS: set either FISCAL_AUTHORITY_BACKOFF_MS or FISCAL_AUTHORITY_BACKOFF_MS_FILE, not both',
        'FISCAL_AUTHORITY_URL: must be an http:// or https:// URL',
        'FISCAL_AUTHORITY_TIMEOUT_MS: must not be less than 100',
        'FISCAL_AUTHORITY_ATTEMPTS: must not be greater than 10',
      ],
    });
  });
});
