import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import path from 'node:path';
import { migrateBenchDatabase, recreateBenchDatabase } from './bench-env';

const ROUNDS = Number(process.env.BENCH_TRACING_ROUNDS ?? 3);

/** An OTLP/HTTP endpoint that takes every export and keeps nothing but a count of bytes. */
async function otlpSink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    bytes: () => bytes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function drain(env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', path.join(__dirname, 'traced-drain.ts')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => {
      const last = output.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`traced drain exited with ${code}: ${output}`));
      resolve((JSON.parse(last) as { eventsPerSecond: number }).eventsPerSecond);
    });
  });
}

/**
 * (e) What tracing costs the relay and the consumers: the same drain in a fresh process, without
 * an exporter (the API's no-op spans only) and with the OTLP exporter configured by the standard
 * variables, sending to a local sink. The variants alternate, ROUNDS each; returns the means.
 */
export async function tracingCost(): Promise<{ untraced: number; traced: number; exportedBytes: number }> {
  const sink = await otlpSink();
  const rates = { untraced: [] as number[], traced: [] as number[] };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      console.log(`(e) tracing cost, round ${round + 1} of ${ROUNDS}: without an exporter`);
      rates.untraced.push(await drain({ OTEL_TRACES_EXPORTER: 'none' }));
      console.log(`(e) tracing cost, round ${round + 1} of ${ROUNDS}: with the OTLP exporter`);
      rates.traced.push(
        await drain({
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
          OTEL_SERVICE_NAME: 'bench',
        }),
      );
    }
  } finally {
    await sink.close();
  }
  const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  return { untraced: mean(rates.untraced), traced: mean(rates.traced), exportedBytes: sink.bytes() };
}

/** `npm run bench -- tracing`: (e) alone, on a database of its own. */
export async function tracingBenchmark(): Promise<Record<string, unknown>> {
  await recreateBenchDatabase();
  await migrateBenchDatabase();
  const cost = await tracingCost();
  console.log(
    `\n(e) drain without a trace exporter: ${cost.untraced.toFixed(0)} events/s; with the OTLP exporter: ` +
      `${cost.traced.toFixed(0)} events/s (${((1 - cost.traced / cost.untraced) * 100).toFixed(1)}% fewer)`,
  );
  return cost;
}
