import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readParticipantConfig } from './config';

const DEFAULTS = { port: 4010, database: 'a_participant' };

// Only values published on purpose (src/config/published-secrets.ts), as every test's are.
describe("A participant's settings, its secrets given as files (`_FILE`), as compose hands them", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'participant-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, content: string): string => {
    const at = path.join(dir, name);
    writeFileSync(at, content);
    return at;
  };

  it('when the database URL and the admin token are given as files, then their contents are read, without the line break', () => {
    const problems: string[] = [];

    const config = readParticipantConfig(
      'P',
      DEFAULTS,
      {
        P_DATABASE_URL_FILE: file('database-url', 'postgres://postgres:not-a-real-one@postgres:5432/a_participant\n'),
        P_ADMIN_TOKEN_FILE: file('admin-token', 'test-gateway-admin-token-0123456789\n'),
      },
      problems,
    );

    expect(problems).toEqual([]);
    expect(config).toMatchObject({
      databaseUrl: 'postgres://postgres:not-a-real-one@postgres:5432/a_participant',
      adminToken: 'test-gateway-admin-token-0123456789',
    });
  });

  it('when a file is empty, then the secret is unset: no admin API', () => {
    const problems: string[] = [];

    const config = readParticipantConfig('P', DEFAULTS, { P_ADMIN_TOKEN_FILE: file('empty', '') }, problems);

    expect(problems).toEqual([]);
    expect(config.adminToken).toBeUndefined();
  });

  it('when a value is given both ways, or its file cannot be read, then each is named and none is echoed', () => {
    const problems: string[] = [];

    readParticipantConfig(
      'P',
      DEFAULTS,
      {
        P_DATABASE_URL: 'postgres://postgres:not-a-real-one@postgres:5432/a_participant',
        P_DATABASE_URL_FILE: file('database-url-too', 'postgres://postgres:not-a-real-one@postgres:5432/a_participant'),
        P_ADMIN_TOKEN_FILE: path.join(dir, 'missing'),
      },
      problems,
    );

    expect(problems).toEqual([
      'P_DATABASE_URL: set either P_DATABASE_URL or P_DATABASE_URL_FILE, not both',
      `P_ADMIN_TOKEN_FILE: cannot read ${path.join(dir, 'missing')} (ENOENT)`,
    ]);
    expect(problems.join(' ')).not.toContain('not-a-real-one');
  });

  it("when the admin token is checkout.http's placeholder, then it is refused, as a short one is", () => {
    const problems: string[] = [];

    readParticipantConfig('P', DEFAULTS, { P_ADMIN_TOKEN: 'paste-FISCAL_AUTHORITY_ADMIN_TOKEN-here' }, problems);

    expect(problems).toEqual([
      "P_ADMIN_TOKEN: is checkout.http's placeholder, which anyone can read; give one of your own",
    ]);
  });
});
