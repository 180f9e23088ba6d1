import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import { validateSync } from 'class-validator';
import { readFileSync } from 'node:fs';

/** Thrown at start when an environment variable has a value the app cannot run with. */
export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

type EnvSchema<T> = new () => T;

const isSet = (value: string | undefined): value is string => value !== undefined && value !== '';

/**
 * The value of `name`: the variable itself, or the content of the file that `<name>_FILE` names
 * (Docker's and Kubernetes' way of handing a secret to a process without putting it in its
 * environment), without its final line break. Both at once is a mistake worth stopping for.
 */
function valueOf(name: string, env: NodeJS.ProcessEnv, problems: string[]): string | undefined {
  const file = env[`${name}_FILE`];
  if (!isSet(file)) return isSet(env[name]) ? env[name] : undefined;
  if (isSet(env[name])) {
    problems.push(`${name}: set either ${name} or ${name}_FILE, not both`);
    return undefined;
  }
  try {
    const content = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    return isSet(content) ? content : undefined;
  } catch (error) {
    problems.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

/**
 * Reads the variables that `Schema` declares (its property names are the variable names, its
 * initialisers the defaults), converts and validates them. Each may also be given as a file, by
 * `<NAME>_FILE`. Values are never echoed: some are secrets.
 */
export function readEnv<T extends object>(Schema: EnvSchema<T>, env: NodeJS.ProcessEnv = process.env): T {
  const declared = Object.keys(new Schema());
  const problems: string[] = [];
  const given = Object.fromEntries(
    declared.map((name) => [name, valueOf(name, env, problems)]).filter(([, value]) => value !== undefined),
  );
  const parsed = plainToInstance(Schema, given, { exposeDefaultValues: true, enableImplicitConversion: true });
  const errors = validateSync(parsed, { forbidUnknownValues: true });
  problems.push(
    ...errors.map(
      (e) =>
        `${e.property}: ${Object.values(e.constraints ?? {})
          .map((text) => text.replace(`${e.property} `, ''))
          .join('; ')}`,
    ),
  );
  if (problems.length > 0) throw new InvalidEnvironmentError(problems);
  return parsed;
}

/**
 * Reads with each of `readers` (readEnv, or a reader built on it), and throws one error naming
 * every bad value of them all; else returns what each read.
 */
export function readEach<T extends unknown[]>(...readers: { [K in keyof T]: () => T[K] }): T {
  const problems: string[] = [];
  const read = readers.map((reader) => {
    try {
      return reader();
    } catch (error) {
      if (!(error instanceof InvalidEnvironmentError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  });
  if (problems.length > 0) throw new InvalidEnvironmentError(problems);
  return read as T;
}

/** `true`/`false`/`1`/`0`/`yes`/`no`; anything else stays a string so that validation names it. */
export const EnvBoolean = () =>
  Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const value = obj[key];
    if (typeof value === 'boolean') return value;
    const text = String(value).trim().toLowerCase();
    if (['true', '1', 'yes'].includes(text)) return true;
    if (['false', '0', 'no'].includes(text)) return false;
    return value;
  });

/** A comma-separated list, trimmed, without empty items. */
export const EnvList = () =>
  Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) =>
    Array.isArray(obj[key])
      ? obj[key]
      : String(obj[key])
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item.length > 0),
  );
