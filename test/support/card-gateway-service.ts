import { createCardGateway } from '../../participants/card-gateway/card-gateway.module';
import { migrateCardGateway } from '../../participants/card-gateway/database/migrate';
import type { OperationRecord } from '../../participants/card-gateway/domain/operations';
import type { FaultRule } from '../../participants/card-gateway/lab/fault-rules';
import { RunningParticipant } from './participant-service';

export const GATEWAY_ADMIN_TOKEN = 'test-gateway-admin-token-0123456789';

/** Approved operations of one reference, by operation: the effects, counted where a 2 can show up. */
export interface Effects {
  authorize: number;
  capture: number;
  void: number;
  refund: number;
}

/** The card gateway service, in this process (RunningParticipant), counted by its operations. */
export class RunningCardGateway extends RunningParticipant<FaultRule> {
  /** `voidsByKey: false`: the profile of a gateway that voids by authorization id only. */
  static async start({ voidsByKey = true }: { voidsByKey?: boolean } = {}): Promise<RunningCardGateway> {
    return new RunningCardGateway(
      ...(await RunningParticipant.launch({
        name: 'gateway',
        migrate: migrateCardGateway,
        create: (config) => createCardGateway({ ...config, voidsByKey }, ['error']),
        adminToken: GATEWAY_ADMIN_TOKEN,
      })),
    );
  }

  /** Every operation the service filed under a reference. */
  operations(reference: string): Promise<OperationRecord[]> {
    return this.listing(reference, 'operations');
  }

  /** The approved operations under a reference, counted by operation. */
  async effects(reference: string): Promise<Effects> {
    const approved = (await this.operations(reference)).filter((operation) => operation.approved);
    const count = (name: string) => approved.filter((operation) => operation.operation === name).length;
    return { authorize: count('authorize'), capture: count('capture'), void: count('void'), refund: count('refund') };
  }
}
