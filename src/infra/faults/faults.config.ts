import { type ConfigType, registerAs } from '@nestjs/config';
import { IsOptional, IsString } from 'class-validator';
import { InvalidEnvironmentError, readEnv } from '../../config/env';

class FaultsEnv {
  /**
   * Rules a lab's process starts with, as `PUT /admin/faults` would set them (a JSON list of
   * `{point, action, times?, correlationId?}`): a test that kills a process starts the next one
   * with the same fault, before it takes a job. Only with FAULT_INJECTION=true; a rule naming no
   * point of the app stops the start, as the route refuses it.
   */
  @IsOptional() @IsString() FAULT_RULES?: string = undefined;
}

function parseRules(text: string | undefined): object[] {
  if (text === undefined) return [];
  try {
    const rules: unknown = JSON.parse(text);
    if (Array.isArray(rules) && rules.every((rule) => typeof rule === 'object' && rule !== null)) return rules;
  } catch {
    // Said below, as a value of the wrong shape is.
  }
  throw new InvalidEnvironmentError(['FAULT_RULES: must be a JSON list of rules, as PUT /admin/faults takes them']);
}

export const faultsConfig = registerAs('faults', () => ({ rulesAtStart: parseRules(readEnv(FaultsEnv).FAULT_RULES) }));
export type FaultsConfig = ConfigType<typeof faultsConfig>;
