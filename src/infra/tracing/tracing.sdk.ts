import type { NodeSDK } from '@opentelemetry/sdk-node';

type Env = Record<string, string | undefined>;

/**
 * Tracing runs when an exporter is configured by the standard variables: OTEL_TRACES_EXPORTER
 * (other than `none`) or an OTLP endpoint. Without one, the SDK is never loaded and every span
 * the app starts is the API's no-op: tracing then costs a function call per message.
 */
export function tracingRequested(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (exporters.includes('none')) return false;
  return exporters.length > 0 || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Requests that a scraper or a load balancer makes every few seconds are not worth a trace. */
const UNTRACED_PATHS = /^\/(health|metrics)(\/|\?|$)/;

let sdk: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry Node SDK for traces only (Prometheus has the metrics, pino the logs).
 * Must run before the instrumented libraries (http, express, pg, ioredis) are first required,
 * which is why main.ts imports `./infra/tracing/start` before anything else.
 */
export function startTracing(env: Env = process.env): boolean {
  if (sdk || !tracingRequested(env)) return Boolean(sdk);
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  /* eslint-enable @typescript-eslint/no-require-imports */

  sdk = new NodeSDK({
    // OTEL_SERVICE_NAME, when set, wins over this default.
    serviceName: env.OTEL_SERVICE_NAME ? undefined : 'checkout-outbox-saga',
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.test(request.url ?? '') }),
      // Route handlers only: a span per middleware (helmet, body parser...) says nothing.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Relays, workers and sweepers poll all the time: only queries and commands inside a traced
      // unit of work are recorded, not the polling itself.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return true;
}

/** Exports what is still buffered; called when the app closes. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
