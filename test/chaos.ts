import { randomBytes } from 'node:crypto';
import { chaosFailed, type ChaosOptions, formatSummary, runChaos } from './support/chaos';
import { hostsUnavailable } from './support/hosts';
import { formatRecoveries, runHostsChaos } from './support/hosts-chaos';
import { startRunParticipants, stopRunParticipants } from './support/run-participants';
import { dropDatabase, recreateDatabase } from './support/test-database';
import { TEST_DATABASE_URL, withDatabaseName } from './support/test-env';

/**
 * `npm run chaos [-- --duration=120 --rate=4 --processes=3 --fault-every=3 --plant=extra-email]`:
 * the chaos test of the suite, longer and configurable (also CHAOS_DURATION_S, CHAOS_RATE,
 * CHAOS_PROCESSES, CHAOS_FAULT_EVERY_S, CHAOS_PLANT). Prints a summary; exits 1 when anything
 * was lost, doubled, held or left unfinished. Runs on a database of its own, dropped afterwards.
 *
 * `npm run chaos -- --hosts [--duration=120 --rate=2 --cut=6 --fault-every=3 --plant=double-capture]`:
 * the same over hosts of their own (network namespaces, as root: test/support/hosts-chaos.ts), the
 * card gateway service on one of them, with random cuts of random hosts' links, the gateway
 * slowed, kills and heals, and the time to recover after each heal; the test of the suite,
 * test/hosts/partitions.e2e-spec.ts, is its short form (each cut once).
 */
function option(name: string, fallback: string): string {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg?.slice(name.length + 3) ?? process.env[`CHAOS_${name.toUpperCase().replace(/-/g, '_')}`] ?? fallback;
}

async function overHosts(): Promise<void> {
  const unavailable = hostsUnavailable();
  if (unavailable) throw new Error(`cannot make hosts here: ${unavailable}`);
  const summary = await runHostsChaos({
    script: 'random',
    durationMs: Number(option('duration', '120')) * 1_000,
    checkoutsPerSecond: Number(option('rate', '2')),
    cutMs: Number(option('cut', '6')) * 1_000,
    faultEveryMs: Number(option('fault-every', '3')) * 1_000,
    plant: option('plant', '') === 'double-capture' ? 'double-capture' : undefined,
    log: (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
  });
  console.log(formatSummary(summary));
  console.log(`copies the inbox turned away: ${JSON.stringify(summary.turnedAway)}`);
  console.log(`time to recover after each heal:\n${formatRecoveries(summary.recoveries)}`);
  process.exitCode = chaosFailed(summary) ? 1 : 0;
}

async function main(): Promise<void> {
  if (process.argv.includes('--hosts')) return overHosts();
  const name = `checkout_test_chaos_${randomBytes(3).toString('hex')}`;
  await recreateDatabase(name);
  const plant = option('plant', '');
  const options: ChaosOptions = {
    databaseUrl: withDatabaseName(TEST_DATABASE_URL, name),
    durationMs: Number(option('duration', '120')) * 1_000,
    checkoutsPerSecond: Number(option('rate', '4')),
    processes: Number(option('processes', '3')),
    faultEveryMs: Number(option('fault-every', '3')) * 1_000,
    plant: plant === 'extra-email' || plant === 'wrong-status' ? plant : undefined,
    log: (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`),
  };
  try {
    // The card gateway and the fiscal authority, as the tests' run starts them (run-participants.ts).
    await startRunParticipants();
    const summary = await runChaos(options);
    console.log(formatSummary(summary));
    process.exitCode = chaosFailed(summary) ? 1 : 0;
  } finally {
    await stopRunParticipants();
    await dropDatabase(name);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
