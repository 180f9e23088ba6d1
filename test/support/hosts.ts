import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import IORedis from 'ioredis';
import { AppProcess } from './app-process';
import { eventually } from './eventually';
import { BIN, postgresUser } from './postgres-pair';
import type { ReceivedMail } from './smtp-sink';

const run = promisify(execFile);

/** Every namespace of a rig is named `hosts-<pid of the process that made it>-<run id>-<host>`. */
const NAME = /^hosts-(\d+)-([0-9a-f]+)-/;
/** The ports the data host's services listen on: each host has its ports to itself. */
export const POSTGRES_PORT = 5432;
export const REDIS_PORT = 6379;
/** The participants' ports, on their host. */
export const CARD_GATEWAY_PORT = 4010;
export const FISCAL_AUTHORITY_PORT = 4020;

/** How each participant service is started on a host: its script, its settings' prefix, its port, a route to ask. */
const PARTICIPANTS = {
  'card-gateway': { prefix: 'CARD_GATEWAY', port: CARD_GATEWAY_PORT, listing: 'operations' },
  'fiscal-authority': { prefix: 'FISCAL_AUTHORITY', port: FISCAL_AUTHORITY_PORT, listing: 'documents' },
} as const;
export type ParticipantName = keyof typeof PARTICIPANTS;

/**
 * Why hosts cannot be made here, or undefined when they can: namespaces need root (or
 * CAP_SYS_ADMIN), iproute2 and iptables. Tried for real, once per test file: a namespace is made
 * and removed.
 */
export function hostsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: network namespaces need root';
  for (const tool of ['ip', 'iptables']) {
    if (spawnSync(tool, ['-V'], { stdio: 'ignore' }).error)
      return `no ${tool} on PATH (apt-get install iproute2 iptables)`;
  }
  const probe = `hosts-probe-${process.pid}-${randomBytes(2).toString('hex')}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.status !== 0) return `ip netns add failed: ${(made.stderr || String(made.error)).trim()}`;
  const rules = spawnSync('ip', ['netns', 'exec', probe, 'iptables', '-w', '-S'], { encoding: 'utf8' });
  spawnSync('ip', ['netns', 'del', probe]);
  if (rules.status !== 0) return `iptables in a namespace failed: ${(rules.stderr || String(rules.error)).trim()}`;
  return undefined;
}

/** One host of the rig: a network namespace with one interface on the rig's subnet. */
export interface Host {
  name: string;
  netns: string;
  address: string;
}

/** Links cut by `cut`, until `heal`. */
export interface Cut {
  from: Host;
  to: Host[];
  /** Only this TCP port of `to` (its Redis, say); every packet between them without it. */
  port?: number;
  rules: string[][];
}

/**
 * Hosts on this machine: network namespaces, each with one veth link to a bridge on a private /24
 * of their own (the bridge lives in a namespace of its own too, so that the machine's firewall,
 * Docker's for instance, never sees the rig's traffic). The test process is a host of the rig as
 * well, the "driver", reaching the others over the bridge at their addresses. A cut is iptables
 * DROP inside the cut host's namespace, both ways: packets vanish, so a connection across it hangs
 * (retransmits) rather than being refused, as across a real partition, and comes back as it was
 * when healed, unless a side gave up on it meanwhile.
 *
 * Names carry the maker's process id and a run id, so parallel runs never clash; `create` first
 * removes the rigs whose maker is gone (a run killed before its cleanup), and a SIGINT or SIGTERM
 * removes this one. Removing a namespace ends the processes still in it (they are killed first).
 */
export class Hosts {
  private readonly cuts = new Set<Cut>();
  private readonly dirs: string[] = [];
  private readonly children: ChildProcess[] = [];
  private readonly onSignal = () => {
    this.destroySync();
    process.exit(130);
  };

  private constructor(
    readonly id: string,
    private readonly switchNs: string,
    private readonly driverLink: string,
    readonly driver: Host,
    private readonly hosts: Map<string, Host>,
  ) {}

  static async create(names: string[]): Promise<Hosts> {
    sweepStaleRigs();
    const id = randomBytes(2).toString('hex');
    const prefix = `hosts-${process.pid}-${id}`;
    const subnet = freeSubnet();
    const switchNs = `${prefix}-switch`;
    const driverLink = `hd${id}`;
    const driver: Host = { name: 'driver', netns: '', address: `${subnet}.1` };
    const hosts = new Map(
      names.map((name, i): [string, Host] => [
        name,
        { name, netns: `${prefix}-${name}`, address: `${subnet}.${10 + i}` },
      ]),
    );
    const rig = new Hosts(id, switchNs, driverLink, driver, hosts);
    process.once('SIGINT', rig.onSignal);
    process.once('SIGTERM', rig.onSignal);
    try {
      const inSwitch = (...args: string[]) => ip('-n', switchNs, ...args);
      await ip('netns', 'add', switchNs);
      await inSwitch('link', 'add', 'br0', 'type', 'bridge');
      await inSwitch('link', 'set', 'br0', 'up');
      // The driver: this process's namespace, one end of a veth whose other end is on the bridge.
      await ip('link', 'add', driverLink, 'type', 'veth', 'peer', 'name', `hp${id}`);
      await ip('link', 'set', `hp${id}`, 'netns', switchNs);
      await inSwitch('link', 'set', `hp${id}`, 'master', 'br0', 'up');
      await ip('addr', 'add', `${driver.address}/24`, 'dev', driverLink);
      await ip('link', 'set', driverLink, 'up');
      for (const [i, host] of [...hosts.values()].entries()) {
        await ip('netns', 'add', host.netns);
        await ip('-n', switchNs, 'link', 'add', `p${i}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.netns);
        await inSwitch('link', 'set', `p${i}`, 'master', 'br0', 'up');
        await ip('-n', host.netns, 'addr', 'add', `${host.address}/24`, 'dev', 'eth0');
        await ip('-n', host.netns, 'link', 'set', 'eth0', 'up');
        await ip('-n', host.netns, 'link', 'set', 'lo', 'up');
      }
      return rig;
    } catch (error) {
      await rig.destroy();
      throw error;
    }
  }

  host(name: string): Host {
    const host = this.hosts.get(name);
    if (!host) throw new Error(`no host ${name} in the rig (${[...this.hosts.keys()].join(', ')})`);
    return host;
  }

  /**
   * Cuts `from` off `to`, one host or several (only `to`'s `port`, when given): DROP both ways, in
   * `from`'s namespace. Nothing is refused; packets vanish until `heal`.
   */
  async cut(from: Host, to: Host | Host[], port?: number): Promise<Cut> {
    const hosts = [to].flat();
    const rules = hosts.flatMap(({ address }) => [
      ['OUTPUT', '-d', address, ...(port ? ['-p', 'tcp', '--dport', String(port)] : []), '-j', 'DROP'],
      ['INPUT', '-s', address, ...(port ? ['-p', 'tcp', '--sport', String(port)] : []), '-j', 'DROP'],
    ]);
    const cut: Cut = { from, to: hosts, port, rules };
    for (const rule of cut.rules) await iptables(from, '-A', ...rule);
    this.cuts.add(cut);
    return cut;
  }

  async heal(cut: Cut): Promise<void> {
    if (!this.cuts.delete(cut)) return;
    for (const rule of cut.rules) await iptables(cut.from, '-D', ...rule);
  }

  async healAll(): Promise<void> {
    for (const cut of [...this.cuts]) await this.heal(cut);
  }

  /** Runs a command in a host's namespace to its end. */
  async exec(host: Host, command: string, args: string[]): Promise<string> {
    const { stdout } = await run('ip', ['netns', 'exec', host.netns, command, ...args], { timeout: 120_000 });
    return stdout;
  }

  /**
   * A private Postgres cluster on `host` (initdb, as the postgres user, in a temporary directory),
   * listening on the host's address, every client of the rig trusted. Its processes are killed with
   * the namespace.
   */
  async startPostgres(host: Host): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'hosts-postgres-'));
    this.dirs.push(dir);
    const { uid, gid } = await postgresUser();
    chownSync(dir, uid, gid);
    const data = join(dir, 'data');
    const asPostgres = (binary: string, args: string[], inHost = false) =>
      run(inHost ? 'ip' : 'runuser', [
        ...(inHost ? ['netns', 'exec', host.netns, 'runuser'] : []),
        '-u',
        'postgres',
        '--',
        join(BIN, binary),
        ...args,
      ]).catch((error: { stderr?: string }) => {
        throw new Error(`${binary} failed: ${error.stderr ?? String(error)}`, { cause: error });
      });
    await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    appendFileSync(
      join(data, 'postgresql.conf'),
      [
        `port = ${POSTGRES_PORT}`,
        `listen_addresses = '${host.address}'`,
        `unix_socket_directories = '${dir}'`,
        'fsync = off',
        'full_page_writes = off',
        'shared_buffers = 32MB',
        'max_connections = 120',
        '',
      ].join('\n'),
    );
    const subnet = this.driver.address.replace(/\.1$/, '.0/24');
    appendFileSync(join(data, 'pg_hba.conf'), `host all all ${subnet} trust\n`);
    await asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60', 'start'], true);
    return `postgres://postgres@${host.address}:${POSTGRES_PORT}`;
  }

  /** A private Redis on `host`, on its address, keeping nothing on disk; killed with the namespace. */
  async startRedis(host: Host): Promise<string> {
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        host.netns,
        'redis-server',
        '--port',
        String(REDIS_PORT),
        '--bind',
        host.address,
        '--protected-mode',
        'no',
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      { stdio: 'ignore' },
    );
    this.children.push(child);
    const url = `redis://${host.address}:${REDIS_PORT}`;
    await eventually(
      async () => {
        const client = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        client.on('error', () => undefined);
        try {
          await client.connect();
          return (await client.ping()) === 'PONG';
        } finally {
          client.disconnect();
        }
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `Redis on ${host.name}` },
    );
    return url;
  }

  /**
   * A real SMTP server as a process on `host` (test/support/smtp-sink-main.ts), listening on the
   * host's address: `received` fills as it takes each message, whatever the apps' tables say.
   */
  async startSmtpSink(host: Host): Promise<{ url: string; received: ReceivedMail[]; stop: () => void }> {
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        host.netns,
        process.execPath,
        '-r',
        '@swc-node/register',
        join(__dirname, 'smtp-sink-main.ts'),
        host.address,
      ],
      { cwd: join(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.children.push(child);
    const received: ReceivedMail[] = [];
    const url = new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the SMTP sink on ${host.name} exited (${code})`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const parsed = JSON.parse(line) as {
          url?: string;
          from: string;
          to: string[];
          headers: Array<[string, string]>;
        };
        if (parsed.url) resolve(parsed.url);
        else received.push({ from: parsed.from, to: parsed.to, headers: new Map(parsed.headers), raw: '' });
      });
    });
    const timeout = setTimeout(() => child.kill('SIGKILL'), 60_000);
    try {
      return { url: await url, received, stop: () => child.kill('SIGKILL') };
    } finally {
      clearTimeout(timeout);
    }
  }

  /**
   * A participant service (participants/<name>/main.ts, what `npm run <name>` runs) as a process
   * on `host`, on its port at the host's address, over `databaseUrl`, a database of its own that
   * it creates and migrates before it listens; resolves once its listing answers. Its admin API
   * takes `adminToken`.
   */
  async startParticipant(name: ParticipantName, host: Host, databaseUrl: string, adminToken: string) {
    const { prefix, port, listing } = PARTICIPANTS[name];
    const service = await AppProcess.start(
      {
        PORT: String(port),
        [`${prefix}_PORT`]: String(port),
        [`${prefix}_HOST`]: host.address,
        [`${prefix}_DATABASE_URL`]: databaseUrl,
        [`${prefix}_ADMIN_TOKEN`]: adminToken,
      },
      [process.execPath, '-r', '@swc-node/register', `participants/${name}/main.ts`],
      { netns: host.netns, address: host.address },
    );
    await eventually(async () => (await service.get(`/v1/references/none/${listing}`)).status === 200, {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: `the ${name} on ${host.name} to answer`,
    }).catch(async (error: Error) => {
      await service.stop();
      throw new Error(`${error.message}\n${service.tail()}`, { cause: error });
    });
    return service;
  }

  /** The app as a process on `host` (its own PORT, 3000), reached at the host's address. */
  startApp(host: Host, env: Record<string, string>): Promise<AppProcess> {
    return AppProcess.start(env, undefined, { netns: host.netns, address: host.address });
  }

  /** Removes everything: the cuts, every process in the hosts, the namespaces, the links, the directories. */
  async destroy(): Promise<void> {
    this.destroySync();
  }

  private destroySync(): void {
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
    this.cuts.clear();
    for (const child of this.children) child.kill('SIGKILL');
    removeRig(`hosts-${process.pid}-${this.id}`);
    spawnSync('ip', ['link', 'del', this.driverLink], { stdio: 'ignore' });
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }
}

const ip = (...args: string[]) =>
  run('ip', args).catch((error: { stderr?: string }) => {
    throw new Error(`ip ${args.join(' ')} failed: ${error.stderr ?? String(error)}`, { cause: error });
  });

const iptables = (host: Host, ...args: string[]) =>
  run('ip', ['netns', 'exec', host.netns, 'iptables', '-w', ...args]).catch((error: { stderr?: string }) => {
    throw new Error(`iptables ${args.join(' ')} on ${host.name} failed: ${error.stderr ?? String(error)}`, {
      cause: error,
    });
  });

/** Kills every process in the rig's namespaces and removes them (the veths go with them). */
function removeRig(prefix: string): void {
  const namespaces = netnsNames().filter((name) => name.startsWith(`${prefix}-`));
  for (const netns of namespaces) {
    const pids = spawnSync('ip', ['netns', 'pids', netns], { encoding: 'utf8' }).stdout ?? '';
    for (const pid of pids.split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  for (const netns of namespaces) spawnSync('ip', ['netns', 'del', netns], { stdio: 'ignore' });
}

function netnsNames(): string[] {
  const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  return listed
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter(Boolean);
}

/** Removes the rigs whose maker is gone (killed before it cleaned up), and their driver links. */
function sweepStaleRigs(): void {
  const stale = new Set<string>();
  for (const name of netnsNames()) {
    const match = NAME.exec(name);
    if (!match) continue;
    try {
      process.kill(Number(match[1]), 0);
    } catch {
      stale.add(`hosts-${match[1]}-${match[2]}|${match[2]}`);
    }
  }
  for (const entry of stale) {
    const [prefix, id] = entry.split('|');
    removeRig(prefix);
    spawnSync('ip', ['link', 'del', `hd${id}`], { stdio: 'ignore' });
  }
}

/** A 10.x.y.0/24 that no route of this machine covers (another rig's, or anything else's). */
function freeSubnet(): string {
  const routes = spawnSync('ip', ['-4', 'route', 'show', 'table', 'all'], { encoding: 'utf8' }).stdout ?? '';
  for (;;) {
    const subnet = `10.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 256)}`;
    if (!routes.includes(`${subnet}.`)) return subnet;
  }
}
