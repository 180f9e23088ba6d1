import { InvalidParticipantConfig } from '../common/config';
import { readFiscalAuthorityConfig } from './fiscal-authority.config';

describe("The fiscal authority service's settings", () => {
  it('when nothing is set, then it serves on 4020 from a database of its own, with a day to cancel and no admin API', () => {
    const { port, databaseUrl, adminToken, cancelWindowSeconds } = readFiscalAuthorityConfig({});

    expect([port, databaseUrl, adminToken, cancelWindowSeconds]).toEqual([
      4020,
      'postgres://postgres:postgres@127.0.0.1:5432/fiscal_authority',
      undefined,
      86_400,
    ]);
  });

  it('when values are wrong, then each is named and none is echoed', () => {
    const reading = () =>
      readFiscalAuthorityConfig({
        FISCAL_AUTHORITY_DATABASE_URL: 'mysql://somewhere',
        FISCAL_AUTHORITY_ADMIN_TOKEN: 'short',
        FISCAL_AUTHORITY_CANCEL_WINDOW_SECONDS: '0',
      });

    expect(reading).toThrow(
      expect.objectContaining({
        problems: [
          'FISCAL_AUTHORITY_DATABASE_URL: must be a postgres:// URL naming a database',
          'FISCAL_AUTHORITY_ADMIN_TOKEN: must be at least 16 characters',
          'FISCAL_AUTHORITY_CANCEL_WINDOW_SECONDS: must be a whole number of seconds (1 to 31536000)',
        ],
      }),
    );
    expect(reading).toThrow(InvalidParticipantConfig);
  });
});
