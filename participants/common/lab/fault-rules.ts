import { IsIn, IsInt, IsOptional, Max, Min, ValidateIf } from 'class-validator';

/** The faults every participant's lab takes, beside the one that turns its answer into a refusal. */
export const TRANSPORT_FAULTS = ['late', 'bad-gateway', 'hold', 'down'] as const;
export type TransportFault = (typeof TRANSPORT_FAULTS)[number];

/**
 * The faults a lab may set, each on the next `times` requests (of one operation, or of any; the
 * listing of a reference only when named, `listing`, as it is where the tests count):
 * - the refusal (`decline` at the gateway, `reject` at the authority): the decision is a refusal
 *   (`injected-decline`, `injected-rejection`), kept for the key as any decision is;
 * - `late`: the effect is applied, and the answer leaves `delayMs` later (a caller that gave up
 *   before then does not know the effect happened);
 * - `bad-gateway`: a 502, before the effect (nothing happened) or after it (it did);
 * - `hold`: the request waits `delayMs` before it is processed, as one stuck in a queue on the way;
 * - `down`: for `seconds`, every connection refused (`refuse`) or every operation answered 503.
 */
export interface FaultRule<Refusal extends string = string, Route extends string = string> {
  fault: Refusal | TransportFault;
  /** Unset: any operation (not the listing). */
  operation?: Route;
  /** How many requests it applies to; 1 unless said. */
  times?: number;
  delayMs?: number;
  when?: 'before-effect' | 'after-effect';
  seconds?: number;
  /** How a `down` service shows it: connections refused (the default), or 503 to every operation. */
  mode?: 'refuse' | '503';
}

/** The class a lab's POST body is checked against, for a service's refusal and routes. */
export function faultRuleOf<Refusal extends string, Route extends string>(
  refusal: Refusal,
  routes: readonly Route[],
): new () => FaultRule<Refusal, Route> {
  class CheckedFaultRule implements FaultRule<Refusal, Route> {
    @IsIn([refusal, ...TRANSPORT_FAULTS]) fault!: Refusal | TransportFault;
    @IsOptional() @IsIn(routes) operation?: Route;
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
    @IsOptional() @IsIn(['refuse', '503']) mode?: 'refuse' | '503';
  }
  return CheckedFaultRule;
}

/** A rule in force, with the requests it still applies to. */
export interface ArmedRule {
  fault: string;
  operation?: string;
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
  fault: string,
  route: string,
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
const aimsAt = (rule: ArmedRule, route: string): boolean =>
  rule.operation === undefined ? route !== 'listing' : rule.operation === route;
