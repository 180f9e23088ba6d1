import { type Job, Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { wakeWorkersOnlyForWaitingJobs } from '../../src/infra/outbox/bullmq-markers';
import { eventually } from '../support/eventually';
import { RedisServer } from '../support/redis-server';

/** Commands sent to Redis by this process from now until `stop`, by name (a script by its name). */
function countCommands(): { counts: Map<string, number>; stop: () => void } {
  const counts = new Map<string, number>();
  const prototype = IORedis.prototype as unknown as { sendCommand: (...args: unknown[]) => unknown };
  const send = prototype.sendCommand;
  prototype.sendCommand = function (this: IORedis, ...args: unknown[]) {
    const command = args[0] as { name: string; args: unknown[] };
    const scripts = (this as unknown as { scriptsSet?: Record<string, { sha: string }> }).scriptsSet ?? {};
    const script = Object.entries(scripts).find(([, { sha }]) => sha === String(command.args[0]))?.[0];
    const name = command.name === 'evalsha' && script ? script.split(':')[0] : command.name;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return send.apply(this, args);
  };
  return { counts, stop: () => (prototype.sendCommand = send) };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("BullMQ's workers wake for a job only while one waits", () => {
  let redis: RedisServer;
  const closing: Array<{ close: () => Promise<unknown> }> = [];
  let prefix = 0;

  beforeAll(async () => {
    expect(wakeWorkersOnlyForWaitingJobs()).toEqual(['moveToActive', 'moveToFinished']);
    redis = await RedisServer.start();
  });

  afterEach(async () => {
    for (const closable of closing.splice(0).reverse()) await closable.close();
  });

  afterAll(() => redis.stop());

  const queueAndWorkers = (workers: number, concurrency: number, work: (job: Job) => Promise<void>) => {
    const options = { prefix: `wakes-${(prefix += 1)}` };
    const producer = new IORedis(redis.url);
    const queue = new Queue('q', { ...options, connection: producer });
    const connections = Array.from({ length: workers }, () => new IORedis(redis.url, { maxRetriesPerRequest: null }));
    const started = connections.map(
      (connection) => new Worker('q', work, { ...options, connection, concurrency, autorun: true }),
    );
    closing.push(queue, ...started, { close: () => producer.quit() });
    return { queue, workers: started };
  };

  it('when jobs arrive one at a time, then each costs one wake and two moves to active, not two and three', async () => {
    let done = 0;
    const { queue, workers } = queueAndWorkers(1, 64, async () => {
      done += 1;
    });
    await workers[0].waitUntilReady();
    await pause(300); // blocked on the marker by now
    const { counts: commands, stop } = countCommands();

    const jobs = 20;
    for (let i = 0; i < jobs; i += 1) {
      await queue.add('job', { i }, { removeOnComplete: true });
      await pause(30);
    }
    await eventually(() => expect(done).toBe(jobs));
    await pause(100);
    stop();

    // Fewer when a job arrives while the last is still handled: moveToFinished hands it on.
    expect(commands.get('bzpopmin') ?? 0).toBeLessThanOrEqual(jobs);
    expect(commands.get('moveToActive') ?? 0).toBeLessThanOrEqual(2 * jobs);
    expect(commands.get('moveToFinished')).toBe(jobs);
  });
});
