import { readFileSync } from 'node:fs';

/** What every participant service runs with, read from its own environment under its own prefix. */
export interface ParticipantConfig {
  /** Where it listens; 0 takes a free port (the tests'). */
  port: number;
  host: string;
  /** Its own database, which the app never reads. */
  databaseUrl: string;
  /** Opens the admin API (/admin/...), where faults are set; unset, the admin API answers 404. */
  adminToken: string | undefined;
}

/** Thrown at start when a variable has a value the service cannot run with; names every bad one. */
export class InvalidParticipantConfig extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'InvalidParticipantConfig';
  }
}

/** A variable's value, or undefined when it is unset or empty. */
export const set = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

/**
 * A secret's value: the variable itself, or the content of the file `<name>_FILE` names (how
 * compose hands the app its secrets), without its final line break; unset when neither is. Both
 * at once is a mistake worth stopping for. The value is never echoed.
 */
function secretOf(name: string, env: NodeJS.ProcessEnv, problems: string[]): string | undefined {
  const file = set(env[`${name}_FILE`]);
  if (file === undefined) return set(env[name]);
  if (set(env[name]) !== undefined) {
    problems.push(`${name}: set either ${name} or ${name}_FILE, not both`);
    return undefined;
  }
  try {
    return set(readFileSync(file, 'utf8').replace(/\r?\n$/, ''));
  } catch (error) {
    problems.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

/** checkout.http's placeholders (`paste-...-here`): published, so they open nothing. */
const PLACEHOLDER = /^paste-.*-here$/;

/**
 * `<PREFIX>_PORT` (`defaults.port`), `<PREFIX>_HOST` (127.0.0.1), `<PREFIX>_DATABASE_URL` (a
 * database `defaults.database` on the local Postgres) and `<PREFIX>_ADMIN_TOKEN` (unset: no admin
 * API), the last two also from a file, by `_FILE`. A token short enough to guess, or checkout.http's
 * placeholder, opens nothing: it is refused at start. Each bad value is pushed on `problems`,
 * for the caller to throw with its own.
 */
export function readParticipantConfig(
  prefix: string,
  defaults: { port: number; database: string },
  env: NodeJS.ProcessEnv,
  problems: string[],
): ParticipantConfig {
  const port = Number(set(env[`${prefix}_PORT`]) ?? defaults.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    problems.push(`${prefix}_PORT: must be a port number (0 to 65535)`);
  const databaseUrl =
    secretOf(`${prefix}_DATABASE_URL`, env, problems) ??
    `postgres://postgres:postgres@127.0.0.1:5432/${defaults.database}`;
  if (!/^postgres(ql)?:\/\/\S+\/[^/\s]+$/.test(databaseUrl))
    problems.push(`${prefix}_DATABASE_URL: must be a postgres:// URL naming a database`);
  const adminToken = secretOf(`${prefix}_ADMIN_TOKEN`, env, problems);
  if (adminToken !== undefined && adminToken.length < 16)
    problems.push(`${prefix}_ADMIN_TOKEN: must be at least 16 characters`);
  else if (adminToken !== undefined && PLACEHOLDER.test(adminToken))
    problems.push(`${prefix}_ADMIN_TOKEN: is checkout.http's placeholder, which anyone can read; give one of your own`);
  return { port, host: set(env[`${prefix}_HOST`]) ?? '127.0.0.1', databaseUrl, adminToken };
}
