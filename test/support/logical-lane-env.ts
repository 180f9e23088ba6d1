import { LOGICAL_LANE_DATABASE_URL, TEST_OUTBOX_RELAY } from './logical-lane';

// Before the test file loads test-env.ts: its databases are made on the lane's cluster, and its
// apps (in this process or as child processes) read the outbox from a slot, every message going
// that way (under the local bus, a message whose consumers run in its process never would).
const url = process.env[LOGICAL_LANE_DATABASE_URL];
if (!url) throw new Error(`${LOGICAL_LANE_DATABASE_URL} is not set: the logical lane's global setup did not run`);
process.env.TEST_DATABASE_URL = url;
process.env[TEST_OUTBOX_RELAY] = 'logical';
process.env.TEST_OUTBOX_DELIVERY = 'queue';
