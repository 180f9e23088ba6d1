import { checkoutBenchmark } from './checkout.bench';
import { peerBenchmark } from './peer.bench';
import { redisBurstBenchmark } from './redis-burst.bench';
import { relayBenchmark } from './relay.bench';
import { relaysBenchmark } from './relays.bench';
import { writeFigures } from './report';

/**
 * `npm run bench [-- name ...]`: runs the named benchmarks (relay and peer by default), prints each one's
 * table with its ratios against the baselines it ran beside, and writes the figures as JSON to
 * bench/results/.
 */
const benchmarks: Record<string, () => Promise<Record<string, unknown>>> = {
  relay: relayBenchmark,
  // (f) of relay, alone: the polling and the logical relay side by side (ADR 0079).
  relays: relaysBenchmark,
  // graphile-worker beside our relay; `checkout` ends with it too.
  peer: peerBenchmark,
  checkout: checkoutBenchmark,
  // What Redis runs a checkout when 200 arrive at once: the count a deployment's ceiling is decided by.
  'redis-burst': redisBurstBenchmark,
};
const DEFAULT = ['relay', 'peer'];

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  const unknown = names.filter((name) => !benchmarks[name]);
  if (unknown.length > 0)
    throw new Error(`Unknown benchmark(s) ${unknown.join(', ')}; known: ${Object.keys(benchmarks).join(', ')}`);
  const results: Record<string, unknown> = {};
  for (const name of names.length > 0 ? names : DEFAULT) results[name] = await benchmarks[name]();
  // BENCH_OUTPUT: a file of the caller's own (exercise 15's check runs the benchmark itself).
  writeFigures('bench', results, process.env.BENCH_OUTPUT);
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
