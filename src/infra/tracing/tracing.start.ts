// Imported first by main.ts: instrumentation has to patch http, express, pg and ioredis before
// anything else requires them.
import { startTracing } from './tracing.sdk';

startTracing();
