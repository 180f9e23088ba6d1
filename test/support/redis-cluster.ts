import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import IORedis, { Cluster } from 'ioredis';
import { freePort } from './app-process';
import { eventually } from './eventually';

const run = promisify(execFile);

export interface RedisNodeAddress {
  host: string;
  port: number;
}

/** An ACL user for every node, or the default user's password alone (`requirepass`). */
export interface RedisAuth {
  username?: string;
  password: string;
}

/** One redis-server of the test's own, kept nothing on disk but its own config, killed at stop. */
export class RedisNodeProcess {
  private process?: ChildProcess;

  constructor(
    readonly host: string,
    readonly port: number,
    private readonly args: string[],
  ) {}

  get address(): string {
    return `${this.host}:${this.port}`;
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  start(binary = 'redis-server'): void {
    this.process = spawn(binary, this.args, { stdio: 'ignore' });
    this.process.once('exit', () => (this.process = undefined));
  }

  /** Dies at once (SIGKILL): what it had not yet replicated is gone with it. */
  async kill(): Promise<void> {
    const child = this.process;
    if (!child) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Stops answering (SIGSTOP) without closing its connections, until `resume`. */
  pause(): void {
    this.process?.kill('SIGSTOP');
  }

  resume(): void {
    this.process?.kill('SIGCONT');
  }
}

/** Arguments that make a redis-server require `auth`, and authenticate to its master when it replicates. */
export function authArgs(auth?: RedisAuth): string[] {
  if (!auth) return [];
  const replication = ['--masterauth', auth.password, ...(auth.username ? ['--masteruser', auth.username] : [])];
  if (!auth.username) return ['--requirepass', auth.password, ...replication];
  return [
    '--user',
    'default',
    'off',
    '--user',
    auth.username,
    'on',
    `>${auth.password}`,
    '~*',
    '&*',
    '+@all',
    ...replication,
  ];
}

/** A client for one node, authenticated as the rig's user; closed after `work`. */
export async function onNode<T>(
  address: RedisNodeAddress,
  auth: RedisAuth | undefined,
  work: (client: IORedis) => Promise<T>,
): Promise<T> {
  const client = new IORedis({
    host: address.host,
    port: address.port,
    username: auth?.username,
    password: auth?.password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

export interface RedisClusterOptions {
  masters?: number;
  replicasPerMaster?: number;
  /** The address every node binds and announces (another host's, for a rig in network namespaces). */
  host?: string;
  /** The nodes' ports; free ones by default. */
  ports?: number[];
  auth?: RedisAuth;
  /** How long a master may be silent before the others fail it over (Redis's default is 15 s). */
  nodeTimeoutMs?: number;
}

/**
 * A real Redis Cluster of the test's own: redis-server in cluster mode, `masters` masters with
 * `replicasPerMaster` replicas each, made with `redis-cli --cluster create`, on free ports of
 * loopback by default. A replica takes over a master that dies after `nodeTimeoutMs`.
 */
export class RedisClusterRig {
  private constructor(
    readonly nodes: RedisNodeProcess[],
    readonly auth: RedisAuth | undefined,
    private readonly dir: string,
  ) {}

  static async start(options: RedisClusterOptions = {}): Promise<RedisClusterRig> {
    const { masters = 3, replicasPerMaster = 1, host = '127.0.0.1', auth, nodeTimeoutMs = 1_000 } = options;
    const count = masters * (1 + replicasPerMaster);
    // A node also binds its port + 10000, the cluster's bus.
    const ports =
      options.ports ?? (await Promise.all(Array.from({ length: count }, () => freePort((port) => [port + 10_000]))));
    const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
    const nodes = ports.map(
      (port) =>
        new RedisNodeProcess(host, port, [
          '--port',
          String(port),
          '--bind',
          host,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          String(nodeTimeoutMs),
          // A replica may take over however long ago it last heard from its master.
          '--cluster-replica-validity-factor',
          '0',
          '--cluster-announce-ip',
          host,
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
          ...authArgs(auth),
        ]),
    );
    const rig = new RedisClusterRig(nodes, auth, dir);
    try {
      nodes.forEach((node) => node.start());
      await Promise.all(
        nodes.map((node) =>
          eventually(
            () => {
              if (!node.running) throw new Error(`redis-server ${node.address} exited (was its port taken?)`);
              return onNode(node, auth, (c) => c.ping());
            },
            { timeoutMs: 20_000, intervalMs: 50, what: `redis-server ${node.address} to answer` },
          ),
        ),
      );
      await run('redis-cli', [
        ...(auth?.username ? ['--user', auth.username] : []),
        ...(auth ? ['--pass', auth.password, '--no-auth-warning'] : []),
        '--cluster',
        'create',
        ...nodes.map((node) => node.address),
        '--cluster-replicas',
        String(replicasPerMaster),
        '--cluster-yes',
      ]);
      await rig.settled(masters);
      return rig;
    } catch (error) {
      await rig.stop();
      throw error;
    }
  }

  /** Some nodes, as REDIS_CLUSTER_NODES takes them. */
  get seeds(): string {
    return this.nodes.map((node) => node.address).join(',');
  }

  /** Every slot served and every live node agreeing so, with `masters` masters. */
  async settled(masters = 3, timeoutMs = 30_000): Promise<void> {
    await eventually(
      async () => {
        for (const node of this.nodes.filter((n) => n.running)) {
          const info = await onNode(node, this.auth, (c) => c.cluster('INFO'));
          expect(info).toContain('cluster_state:ok');
          expect(info).toContain('cluster_slots_ok:16384');
        }
        expect((await this.masters()).map((node) => node.address)).toHaveLength(masters);
      },
      { timeoutMs, intervalMs: 100, what: 'the Redis Cluster to settle' },
    );
  }

  /** The live masters as a live node sees them. */
  async masters(): Promise<RedisNodeProcess[]> {
    const live = this.nodes.find((node) => node.running);
    if (!live) return [];
    const lines = await onNode(live, this.auth, (c) => c.cluster('NODES'));
    const addresses = String(lines)
      .split('\n')
      .map((line) => line.split(' '))
      .filter(([, , flags = '']) => flags.split(',').includes('master') && !flags.includes('fail'))
      .map(([, address]) => address.split('@')[0]);
    return this.nodes.filter((node) => node.running && addresses.includes(node.address));
  }

  /** The hash slot of a key. */
  slotOf(key: string): Promise<number> {
    const live = this.nodes.find((node) => node.running)!;
    return onNode(live, this.auth, async (client) => (await client.cluster('KEYSLOT', key)) as number);
  }

  /** The master that serves `key` now. */
  async masterOf(key: string): Promise<RedisNodeProcess> {
    const slot = await this.slotOf(key);
    const live = this.nodes.find((node) => node.running)!;
    return onNode(live, this.auth, async (client) => {
      const ranges = (await client.cluster('SLOTS')) as unknown as Array<[number, number, [string, number]]>;
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`no master serves slot ${slot}`);
      const [, , [host, port]] = range;
      return this.nodes.find((node) => node.host === host && node.port === port)!;
    });
  }

  /** The replica of a master (the first one a node lists). */
  async replicaOf(master: RedisNodeProcess): Promise<RedisNodeProcess> {
    const lines = String(await onNode(master, this.auth, (c) => c.cluster('NODES')));
    const id = lines
      .split('\n')
      .find((line) => line.includes('myself'))!
      .split(' ')[0];
    const address = lines
      .split('\n')
      .find((line) => line.split(' ')[3] === id)
      ?.split(' ')[1]
      .split('@')[0];
    const replica = this.nodes.find((node) => node.address === address);
    if (!replica) throw new Error(`${master.address} has no replica`);
    return replica;
  }

  /** Adds an ACL user on every live node (a cluster does not share its ACLs between nodes). */
  async addUser(username: string, password: string, rules: string[]): Promise<void> {
    for (const node of this.nodes.filter((n) => n.running)) {
      await onNode(node, this.auth, (c) => c.call('ACL', 'SETUSER', username, 'on', `>${password}`, ...rules));
    }
  }

  /** A client of the whole cluster, as a test's own (quiet(), counting keys). */
  client(): Cluster {
    return new Cluster(
      this.nodes.map(({ host, port }) => ({ host, port })),
      { redisOptions: { username: this.auth?.username, password: this.auth?.password, maxRetriesPerRequest: null } },
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
