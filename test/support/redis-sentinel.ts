import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { freePort } from './app-process';
import { eventually } from './eventually';
import { authArgs, onNode, type RedisAuth, RedisNodeProcess } from './redis-cluster';

export interface RedisSentinelOptions {
  replicas?: number;
  sentinels?: number;
  /** The master group's name, as REDIS_SENTINEL_MASTER takes it. */
  masterName?: string;
  /** The address every server and sentinel binds (another host's, for a rig in network namespaces). */
  host?: string;
  auth?: RedisAuth;
  /** How long the master may be silent before the sentinels call it down (their default is 30 s). */
  downAfterMs?: number;
}

/**
 * A real Redis Sentinel group of the test's own: a master, its replicas and `sentinels` sentinels
 * (a quorum of a majority), on free ports. When the master dies, the sentinels promote a replica.
 */
export class RedisSentinelRig {
  private constructor(
    readonly servers: RedisNodeProcess[],
    readonly sentinels: RedisNodeProcess[],
    readonly masterName: string,
    readonly auth: RedisAuth | undefined,
    private readonly dir: string,
  ) {}

  static async start(options: RedisSentinelOptions = {}): Promise<RedisSentinelRig> {
    const { replicas = 1, sentinels: sentinelCount = 3, masterName = 'checkout', host = '127.0.0.1', auth } = options;
    const downAfterMs = options.downAfterMs ?? 1_000;
    const dir = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
    const ports = await Promise.all(Array.from({ length: 1 + replicas + sentinelCount }, () => freePort()));
    const [masterPort, ...rest] = ports;
    const serverArgs = (port: number) => [
      '--port',
      String(port),
      '--bind',
      host,
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      ...authArgs(auth),
    ];
    const servers = [
      new RedisNodeProcess(host, masterPort, serverArgs(masterPort)),
      ...rest
        .slice(0, replicas)
        .map(
          (port) => new RedisNodeProcess(host, port, [...serverArgs(port), '--replicaof', host, String(masterPort)]),
        ),
    ];
    const sentinels = rest.slice(replicas).map((port) => {
      // A sentinel rewrites its configuration file as it learns: each its own.
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          `bind ${host}`,
          `dir ${dir}`,
          `sentinel monitor ${masterName} ${host} ${masterPort} ${Math.floor(sentinelCount / 2) + 1}`,
          `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
          `sentinel failover-timeout ${masterName} ${Math.max(downAfterMs * 3, 3_000)}`,
          `sentinel parallel-syncs ${masterName} 1`,
          ...(auth?.username ? [`sentinel auth-user ${masterName} ${auth.username}`] : []),
          ...(auth ? [`sentinel auth-pass ${masterName} ${auth.password}`] : []),
          '',
        ].join('\n'),
      );
      return new RedisNodeProcess(host, port, [file, '--sentinel']);
    });
    const rig = new RedisSentinelRig(servers, sentinels, masterName, auth, dir);
    try {
      servers.forEach((server) => server.start());
      sentinels.forEach((sentinel) => sentinel.start());
      await rig.settled(replicas);
      return rig;
    } catch (error) {
      await rig.stop();
      throw error;
    }
  }

  /** The sentinels, as REDIS_SENTINELS takes them. */
  get addresses(): string {
    return this.sentinels.map((sentinel) => sentinel.address).join(',');
  }

  /** Every sentinel agrees on a live master, knows `replicas` replicas of it and the other sentinels. */
  async settled(replicas = 1, timeoutMs = 30_000): Promise<void> {
    await eventually(
      async () => {
        const master = await this.master();
        expect(master.running).toBe(true);
        const role = await onNode(master, this.auth, (c) => c.call('ROLE') as Promise<unknown[]>);
        expect(role[0]).toBe('master');
        expect(role[2] as unknown[]).toHaveLength(replicas);
        for (const sentinel of this.sentinels.filter((s) => s.running)) {
          const answer = await onSentinel(sentinel, (c) =>
            c.call('SENTINEL', 'get-master-addr-by-name', this.masterName),
          );
          expect(answer).toEqual([master.host, String(master.port)]);
          const known = await onSentinel(
            sentinel,
            (c) => c.call('SENTINEL', 'sentinels', this.masterName) as Promise<unknown[]>,
          );
          expect(known).toHaveLength(this.sentinels.length - 1);
        }
      },
      { timeoutMs, intervalMs: 200, what: 'the Sentinel group to settle' },
    );
  }

  /** The master as the first live sentinel names it. */
  async master(): Promise<RedisNodeProcess> {
    const sentinel = this.sentinels.find((s) => s.running)!;
    const [host, port] = (await onSentinel(sentinel, (c) =>
      c.call('SENTINEL', 'get-master-addr-by-name', this.masterName),
    )) as [string, string];
    const master = this.servers.find((server) => server.host === host && server.port === Number(port));
    if (!master) throw new Error(`the sentinels name ${host}:${port}, not one of the rig's servers`);
    return master;
  }

  /** A client of the group's master, found through the sentinels, as a test's own (quiet()). */
  client(): IORedis {
    return new IORedis({
      sentinels: this.sentinels.map(({ host, port }) => ({ host, port })),
      name: this.masterName,
      username: this.auth?.username,
      password: this.auth?.password,
      maxRetriesPerRequest: null,
    });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sentinels, ...this.servers].map((node) => node.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const onSentinel = <T>(sentinel: RedisNodeProcess, work: (client: IORedis) => Promise<T>) =>
  onNode(sentinel, undefined, work);
