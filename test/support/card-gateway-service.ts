import { createCardGateway } from '../../participants/card-gateway/card-gateway.module';
import { migrateCardGateway } from '../../participants/card-gateway/database/migrate';
import type { OperationRecord } from '../../participants/card-gateway/domain/operations';
import type { FaultRule } from '../../participants/card-gateway/lab/fault-rules';
import { type Effects, effectsAt } from './at-the-participants';
import { RunningParticipant } from './participant-service';

export const GATEWAY_ADMIN_TOKEN = 'test-gateway-admin-token-0123456789';

/** The card gateway service, in this process (RunningParticipant), counted by its operations. */
export class RunningCardGateway extends RunningParticipant<FaultRule> {
  /**
   * `voidsByKey: false`: the profile of a gateway that voids by authorization id only;
   * `adminToken: null`: a service with no admin API (the run's own, which no test may fault).
   */
  static async start({
    voidsByKey = true,
    adminToken = GATEWAY_ADMIN_TOKEN,
  }: { voidsByKey?: boolean; adminToken?: string | null } = {}): Promise<RunningCardGateway> {
    return new RunningCardGateway(
      ...(await RunningParticipant.launch({
        name: 'gateway',
        migrate: migrateCardGateway,
        create: (config) => createCardGateway({ ...config, voidsByKey }, ['error']),
        adminToken: adminToken ?? undefined,
      })),
    );
  }

  /** Every operation the service filed under a reference. */
  operations(reference: string): Promise<OperationRecord[]> {
    return this.listing(reference, 'operations');
  }

  /** The approved operations under a reference, counted by operation. */
  effects(reference: string): Promise<Effects> {
    return effectsAt(this.url, reference);
  }
}
