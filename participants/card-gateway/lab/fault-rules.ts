import { faultRuleOf } from '../../common/lab/fault-rules';
import { ROUTES } from '../requests';

/** A rule of the gateway's lab: its refusal is a decline (`injected-decline`), on any of its routes. */
export const FaultRule = faultRuleOf('decline', ROUTES);
export type FaultRule = InstanceType<typeof FaultRule>;
