import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PUBLISHED_SECRETS, passwordOf, publishedPasswordProblem, publishedSecretProblem } from './published-secrets';

const root = path.resolve(__dirname, '../..');

/** Names that hold a secret: `ADMIN_TOKEN`, `adminToken`, `AUTH_TOKEN_SECRET`, `REDIS_PASSWORD`, ... */
const NAME = String.raw`[A-Za-z_@.-]*(?:token|secret|password|passwd)[A-Za-z_]*`;
/** Not secrets: ADMIN_TOKEN's `generate`, booleans, a printf placeholder, a file's path (`*_FILE`). */
const NOT_A_LITERAL = /^(generate|true|false|null|undefined|%s|\/.*)$/;

/**
 * The literal values that `text` gives to a secret: assigned to a name that says so (quoted in
 * code; quoted or not in env files, compose files, shell lines and the docs), a compose default
 * (`${ADMIN_TOKEN:-...}`), a URL's password, or a bearer token written out.
 */
function secretsIn(text: string, file: string): string[] {
  const code = /\.(ts|js|mjs|cjs)$/.test(file);
  const quote = code ? `(['"])` : `(['"]?)`;
  const patterns: Array<[RegExp, number]> = [
    [new RegExp(String.raw`\$\{(${NAME}):?-([^}]+)\}`, 'gi'), 2],
    [new RegExp(String.raw`\b(${NAME})[ \t]*(?::-|[:=])[ \t]*${quote}([^\s'"\`$\{\}(),;<>]{6,})\2`, 'gi'), 3],
    [/\b(?:postgres(?:ql)?|rediss?):\/\/[^:@/\s'"`]*:([^@/\s'"`$]+)@/gi, 1],
    [/\bBearer\s+([A-Za-z0-9._~+/=-]{8,})/g, 1],
  ];
  const values = patterns.flatMap(([pattern, group]) => [...text.matchAll(pattern)].map((match) => match[group]));
  return [...new Set(values)].filter((value) => !NOT_A_LITERAL.test(value));
}

/**
 * The repository's published text files: what `git` tracks, as anyone who clones it gets them.
 * This spec is left out: it plants values the list must not have.
 */
function publishedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && !/\.(png|jpe?g|gif|ico|woff2?|pdf)$/i.test(file))
    .filter((file) => file !== path.relative(root, __filename));
}

describe('Secrets published in the repository', () => {
  it('when every published file is read, then each secret-like value in it is on the list that production refuses', () => {
    const unlisted = publishedFiles().flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(path.join(root, file), 'utf8');
      } catch {
        return []; // listed by git, deleted in the work tree
      }
      return secretsIn(text, file)
        .filter((value) => !PUBLISHED_SECRETS.has(value))
        .map((value) => `${file}: ${value}`);
    });

    expect(unlisted).toEqual([]);
  });

  it.each([
    ['.env.example', 'ADMIN_TOKEN=my-new-example-token\n'],
    ['docker-compose.yml', 'AUTH_TOKEN_SECRET: ${AUTH_TOKEN_SECRET:-another-example-secret-0123456789}\n'],
    ['test/support/test-env.ts', "export const METRICS_TOKEN = 'test-metrics-token-0123';\n"],
    ['checkout.http', '@adminToken = another-example-token\n'],
    ['README.md', 'REDIS_URL=redis://:hunter2-example@localhost:6379\n'],
    ['README.md', "curl -H 'Authorization: Bearer op_abcdefghijklmnop' $API/admin/sagas\n"],
  ])('when a new example value is planted in %s, then the scan finds it', (file, planted) => {
    const found = secretsIn(planted, file);

    expect(found).toHaveLength(1);
    expect(PUBLISHED_SECRETS.has(found[0])).toBe(false);
  });

  it.each([
    ['src/x.ts', 'const token = process.env.ADMIN_TOKEN;\nconst adminToken: string = config.token;\n'],
    ['README.md', 'curl -H "Authorization: Bearer $ADMIN_TOKEN" $API\nADMIN_TOKEN=generate\n'],
    ['docker-compose.yml', 'ADMIN_TOKEN: ${ADMIN_TOKEN:-generate}\n'],
  ])('when %s only refers to a secret, then the scan finds nothing', (file, text) => {
    expect(secretsIn(text, file)).toEqual([]);
  });

  it('when NODE_ENV is production, then each listed value is refused, and a value of ones own is not', () => {
    const production = { NODE_ENV: 'production' };
    for (const value of PUBLISHED_SECRETS) expect(publishedSecretProblem('X', value, production)).toBeDefined();
    expect(publishedSecretProblem('X', 'a-value-nobody-published-0123456789', production)).toBeUndefined();
    expect(publishedSecretProblem('X', 'postgres', {})).toBeUndefined();
  });

  it('when a URL carries a password, then it is read decoded; without one, there is none', () => {
    expect(passwordOf('redis://:p%40ss@redis:6379')).toBe('p@ss');
    expect(passwordOf('postgres://postgres:postgres@localhost/checkout')).toBe('postgres');
    expect(passwordOf('redis://localhost:6379')).toBeUndefined();
  });

  it('when a production URL carries a published password, then it is refused; its own, or none, is not', () => {
    const production = { NODE_ENV: 'production' };
    expect(publishedPasswordProblem('DATABASE_URL', 'postgres://postgres:postgres@db/checkout', production)).toMatch(
      /^DATABASE_URL: its password is one published/,
    );
    expect(publishedPasswordProblem('REDIS_URL', 'redis://:password@redis:6379', production)).toBeDefined();
    expect(
      publishedPasswordProblem('DATABASE_URL', 'postgres://app:Zq8-own-one@db/checkout', production),
    ).toBeUndefined();
    expect(publishedPasswordProblem('DATABASE_URL', 'postgres://postgres@db/checkout', production)).toBeUndefined();
    expect(publishedPasswordProblem('DATABASE_URL', 'postgres://postgres:postgres@db/checkout', {})).toBeUndefined();
  });
});
