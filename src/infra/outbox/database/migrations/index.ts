import { CreateOutboxSchema1795970000000 } from './1795970000000-create-outbox-schema';
import { CreateOutboxTables1795970001000 } from './1795970001000-create-outbox-tables';
import { CreateOutboxDeployment1795970002000 } from './1795970002000-create-outbox-deployment';
import { RecordCrashedDeliveries1795970003000 } from './1795970003000-record-crashed-deliveries';
import { CreateOutboxConsumers1795970004000 } from './1795970004000-create-outbox-consumers';
import { ChargeEachStallOnce1795970007000 } from './1795970007000-charge-each-stall-once';
import { RecordRunsOfSuspects1795970009000 } from './1795970009000-record-runs-of-suspects';
import { CreateConsumerVersions1795970009500 } from './1795970009500-create-consumer-versions';
import { ClaimMessagesForTheLocalBus1795970010000 } from './1795970010000-claim-messages-for-the-local-bus';

/** The transport's schema, in order: the app registers them, and the transport's own tests migrate with them alone. */
export const OUTBOX_MIGRATIONS = [
  CreateOutboxSchema1795970000000,
  CreateOutboxTables1795970001000,
  CreateOutboxDeployment1795970002000,
  RecordCrashedDeliveries1795970003000,
  CreateOutboxConsumers1795970004000,
  ChargeEachStallOnce1795970007000,
  RecordRunsOfSuspects1795970009000,
  CreateConsumerVersions1795970009500,
  ClaimMessagesForTheLocalBus1795970010000,
];
