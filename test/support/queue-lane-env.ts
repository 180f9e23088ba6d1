// Before the test file loads test-env.ts: its apps (in this process or as child processes) send
// every message through the relay and the queues, as with OUTBOX_DELIVERY=queue (ADR 0096).
process.env.TEST_OUTBOX_DELIVERY = 'queue';
