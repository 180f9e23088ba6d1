import { faultRuleOf } from '../../common/lab/fault-rules';
import { ROUTES } from '../requests';

/** A rule of the authority's lab: its refusal is a rejection (`injected-rejection`), on any of its routes. */
export const FaultRule = faultRuleOf('reject', ROUTES);
export type FaultRule = InstanceType<typeof FaultRule>;
