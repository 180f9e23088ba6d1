/**
 * Every secret, token and password that this repository publishes, now or in an earlier version:
 * examples (.env.example, docker-compose.yml, checkout.http, the docs), the tests' and benchmarks'
 * own, and the development secret older versions signed with. Anyone can read them, so a
 * production process refuses each of them wherever the app takes a secret.
 * `published-secrets.spec.ts` greps the repository's files and fails on one missing here.
 */
export const PUBLISHED_SECRETS: ReadonlySet<string> = new Set([
  // Examples for the compose walk-through, in the versions before the deployment's own secrets.
  'change-me-local-token-secret-0123456789',
  'change-me-local-admin-token',
  // checkout.http's placeholders: the operator token the app makes, the fiscal authority's lab token.
  'paste-the-operator-token-here',
  'paste-FISCAL_AUTHORITY_ADMIN_TOKEN-here',
  // The development secret that versions before the deployment's own secret signed with.
  'dev-only-token-secret-anyone-can-read-it-in-the-sources',
  // Tests and benchmarks.
  'test-admin-token-0123456789',
  'test-metrics-token-0123456789',
  'a-scraper-token-of-my-own',
  'test-token-secret-0123456789abcdefghijklmnop',
  'bench-admin-token-0123456789',
  'short-secret',
  'wrong-token',
  'wrong-token-of-some-length',
  'test-admin-token-012345678X',
  'op_anything-at-all-0123456789',
  // The card gateway service's admin token in its tests (test/support/card-gateway-service.ts).
  'test-gateway-admin-token-0123456789',
  // The fiscal authority service's admin token in its tests (test/support/fiscal-authority-service.ts).
  'test-authority-admin-token-0123456789',
  // Redis's examples (docs/scaling-redis.md, redis.config.spec.ts).
  'password',
  'not-a-real-one',
  // Postgres's password in the examples' URLs and in compose's test services.
  'postgres',
]);

/** Whether the app runs as a production deployment, where only the deployment's own secrets are taken. */
export const isProduction = (env: NodeJS.ProcessEnv = process.env): boolean => env.NODE_ENV === 'production';

const refused = (value: string | undefined, env: NodeJS.ProcessEnv) =>
  value !== undefined && isProduction(env) && PUBLISHED_SECRETS.has(value);

/**
 * The problem with `value` as the variable `name`, when a production process is given a value that
 * this repository publishes; undefined otherwise. The value itself is not repeated.
 */
export function publishedSecretProblem(
  name: string,
  value: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (!refused(value, env)) return undefined;
  return `${name}: is a value published in the repository (an example or a test's), which anyone can read; with NODE_ENV=production give one of your own`;
}

/**
 * The problem with the password that the URL in `name` carries, when a production process is given
 * one this repository publishes (compose's and the examples' `postgres`, say); undefined otherwise.
 */
export function publishedPasswordProblem(
  name: string,
  url: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (url === undefined || !refused(passwordOf(url), env)) return undefined;
  return `${name}: its password is one published in the repository (an example's or a test's), which anyone can read; with NODE_ENV=production give one of your own`;
}

/** The password of a `scheme://user:password@host` URL, decoded; undefined when it has none. */
export function passwordOf(url: string): string | undefined {
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
