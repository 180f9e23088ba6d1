import { IsIn, IsInt, IsOptional, Max, Min, ValidateIf } from 'class-validator';
import { ROUTES, type Route } from '../requests';

/**
 * The faults a lab may set, each on the next `times` requests (of one operation, or of any; the
 * listing of a reference only when named, `listing`, as it is where the tests count):
 * - `decline`: the decision is a decline (`injected-decline`), kept for the key as any decision is;
 * - `late`: the effect is applied, and the answer leaves `delayMs` later (a caller that gave up
 *   before then does not know the effect happened);
 * - `bad-gateway`: a 502, before the effect (nothing happened) or after it (it did);
 * - `hold`: the request waits `delayMs` before it is processed, as one stuck in a queue on the
 *   way: a void of the same key that arrives meanwhile goes first, and leaves a tombstone;
 * - `down`: for `seconds`, every connection refused (`refuse`) or every operation answered 503.
 */
export const FAULTS = ['decline', 'late', 'bad-gateway', 'hold', 'down'] as const;
export type Fault = (typeof FAULTS)[number];

export class FaultRule {
  @IsIn(FAULTS) fault!: Fault;
  /** Unset: any operation (not the listing). */
  @IsOptional() @IsIn(ROUTES) operation?: Route;
  /** How many requests it applies to; 1 unless said. */
  @IsOptional() @IsInt() @Min(1) @Max(10_000) times?: number;
  @ValidateIf((rule: FaultRule) => rule.fault === 'late' || rule.fault === 'hold')
  @IsInt()
  @Min(0)
  @Max(600_000)
  delayMs?: number;
  @ValidateIf((rule: FaultRule) => rule.fault === 'bad-gateway')
  @IsIn(['before-effect', 'after-effect'])
  when?: 'before-effect' | 'after-effect';
  @ValidateIf((rule: FaultRule) => rule.fault === 'down')
  @IsInt()
  @Min(1)
  @Max(3_600)
  seconds?: number;
  /** How a `down` gateway shows it: connections refused (the default), or 503 to every operation. */
  @IsOptional() @IsIn(['refuse', '503']) mode?: 'refuse' | '503';
}

/** A rule in force, with the requests it still applies to. */
export interface ArmedRule {
  fault: Exclude<Fault, 'down'>;
  operation?: Route;
  left: number;
  delayMs?: number;
  when?: 'before-effect' | 'after-effect';
}

/**
 * Takes one use of the first rule for this fault and operation (and `when`, for a 502) that has
 * any left, and drops it once spent.
 */
export function takeRule(
  rules: ArmedRule[],
  fault: ArmedRule['fault'],
  route: Route,
  when?: ArmedRule['when'],
): ArmedRule | undefined {
  const index = rules.findIndex(
    (rule) => rule.fault === fault && aimsAt(rule, route) && (when === undefined || rule.when === when),
  );
  if (index < 0) return undefined;
  const rule = rules[index];
  rule.left -= 1;
  if (rule.left <= 0) rules.splice(index, 1);
  return rule;
}

/** A rule for any operation leaves the listing alone: the tests count there while operations fail. */
const aimsAt = (rule: ArmedRule, route: Route): boolean =>
  rule.operation === undefined ? route !== 'listing' : rule.operation === route;
