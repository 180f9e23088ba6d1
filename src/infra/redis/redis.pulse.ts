import { type EventEmitter, once } from 'node:events';

/** What the pulse needs of RedisConnections (which owns it): a command connection. */
interface Connections {
  open(name: string, role: 'command'): ProbeClient;
}
interface ProbeClient extends EventEmitter {
  status: string;
  exists(key: string): Promise<number>;
}

/** How long an error of a queue's worker or producer keeps the transport reported down, unless work succeeds after it. */
export const ERROR_RECENT_MS = 10_000;
const PROBE_TIMEOUT_MS = 1_000;

interface Part {
  /** A key of the part's queue: reading it goes where the queue's scripts go (its slot, its node). */
  key: string;
  lastError?: { at: number; message: string };
  lastOk?: number;
}

/** A part that cannot move jobs, and why. */
export interface PartDown {
  part: string;
  error: string;
}

/**
 * Whether the queues' parts (each queue's producer and worker) can reach their keys. A Redis that
 * answers PING is not enough: a client that speaks to one node of a Redis Cluster gets MOVED for
 * every queue held elsewhere, an ACL user may lack a queue's keys or commands. So each part is
 * checked two ways: a read of one of its queue's keys, by a command connection configured as the
 * app's are; and the errors its BullMQ Queue or Worker reported, when no work succeeded since.
 * `RedisConnections.pulse` is the app's one.
 */
export class RedisPulse {
  private readonly parts = new Map<string, Part>();
  private client?: ProbeClient;

  constructor(private readonly redis: Connections) {}

  /**
   * Follows a BullMQ Queue or Worker (`emitter`), named `part`, whose keys share a slot with `key`.
   * A worker's `active`, `completed`, `failed` and `drained` events are work that went through.
   */
  follow(part: string, key: string, emitter: EventEmitter): void {
    const state: Part = { key };
    this.parts.set(part, state);
    // Opened with the first part, so that it is ready by the time /health asks.
    this.client ??= this.redis.open('health:queues', 'command');
    emitter.on('error', (error: Error) => (state.lastError = { at: Date.now(), message: error.message }));
    for (const event of ['active', 'completed', 'failed', 'drained']) {
      emitter.on(event, () => (state.lastOk = Date.now()));
    }
  }

  /** The parts that cannot move jobs now (empty when all can). */
  async down(): Promise<PartDown[]> {
    const client = this.client;
    if (!client) return [];
    // Just after the app starts, the connection may still be on its way: wait for it (bounded).
    if (['wait', 'connecting', 'connect', 'reconnecting'].includes(client.status)) {
      await withTimeout(once(client, 'ready'), PROBE_TIMEOUT_MS).catch(() => undefined);
    }
    const now = Date.now();
    const results = await Promise.all(
      [...this.parts].map(async ([part, state]): Promise<PartDown | undefined> => {
        try {
          await withTimeout(client.exists(state.key), PROBE_TIMEOUT_MS);
        } catch (error) {
          return { part, error: (error as Error).message };
        }
        const { lastError, lastOk = 0 } = state;
        if (lastError && lastError.at > lastOk && now - lastError.at < ERROR_RECENT_MS) {
          return { part, error: `${lastError.message} (${Math.round((now - lastError.at) / 1_000)} s ago)` };
        }
        return undefined;
      }),
    );
    return results.filter((result): result is PartDown => result !== undefined);
  }
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
