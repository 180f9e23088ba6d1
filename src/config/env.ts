import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import { validateSync } from 'class-validator';

/** Thrown at start when an environment variable has a value the app cannot run with. */
export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

type EnvSchema<T> = new () => T;

/**
 * Reads the variables that `Schema` declares (its property names are the variable names, its
 * initialisers the defaults), converts and validates them. Values are never echoed: some are secrets.
 */
export function readEnv<T extends object>(Schema: EnvSchema<T>, env: NodeJS.ProcessEnv = process.env): T {
  const declared = Object.keys(new Schema());
  const given = Object.fromEntries(
    declared.filter((name) => env[name] !== undefined && env[name] !== '').map((name) => [name, env[name]]),
  );
  const parsed = plainToInstance(Schema, given, { exposeDefaultValues: true, enableImplicitConversion: true });
  const errors = validateSync(parsed, { forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new InvalidEnvironmentError(
      errors.map(
        (e) =>
          `${e.property}: ${Object.values(e.constraints ?? {})
            .map((text) => text.replace(`${e.property} `, ''))
            .join('; ')}`,
      ),
    );
  }
  return parsed;
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
