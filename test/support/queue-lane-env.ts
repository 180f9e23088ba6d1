// Before the test file loads test-env.ts: its apps (in this process or as child processes) hand
// the messages whose consumers all run in them to those consumers, with no Redis (ADR 0096).
process.env.TEST_OUTBOX_DELIVERY = 'local';
