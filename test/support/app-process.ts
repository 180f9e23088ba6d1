import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from './eventually';
import { testAppEnv, TEST_REDIS_URL } from './test-env';

const root = path.resolve(__dirname, '../..');

/** One end of a socket in Node's diagnostic report. */
type Endpoint = { host?: string; ip4?: string; ip6?: string; port: number };

/**
 * The ports tests hand out: below the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range,
 * 32768 and up here), where `listen(0)` and outgoing connections take theirs, and ten thousand below
 * its start, because a Redis Cluster node also binds its port + 10000 (its bus): a node whose bus
 * port another process's `listen(0)` held never started ("Connection is closed" at the rig's start).
 */
const PORTS_FROM = 10_000;
const PORTS_TO = 20_000;
/**
 * The Fetch standard's "bad ports" in that range: Node's fetch refuses to reach them ("fetch
 * failed", its cause "bad port") whatever listens there. An app given 10080 listened, and a
 * test's /health never reached it: a start that seemed never to listen, in a CI run now and then.
 */
const FETCH_REFUSES = new Set([10_080]);
/** Ports this process handed out: two calls in the same moment never get the same one. */
const handedOut = new Set<number>();

/**
 * A TCP port that nothing listens on right now, picked at random in a range of its own (two test
 * files that pick at the same moment rarely meet) and checked by binding it, with the ports
 * `alsoFree` names beside it (a cluster node's bus).
 */
export async function freePort(alsoFree: (port: number) => number[] = () => []): Promise<number> {
  for (;;) {
    const port = PORTS_FROM + Math.floor(Math.random() * (PORTS_TO - PORTS_FROM));
    if (handedOut.has(port) || FETCH_REFUSES.has(port)) continue;
    const free = await Promise.all([port, ...alsoFree(port)].map(canListen));
    if (!free.every(Boolean)) continue;
    handedOut.add(port);
    return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The app as its own operating-system process, the way it runs in production: for what only a
 * process shows (refusing to start, exit codes, signals, being killed). By default it runs the
 * TypeScript sources through @swc-node/register, not the compiled tree the exercises' apps run
 * (test/support/compiled.ts). The logical crash lane's red runs from the tree (unpublished rows
 * missing from the slot after a kill) were the test's, not the tree's: it armed its crash while the
 * first reader was still creating its slot (crash.e2e-spec.ts, untilTheSlotIsRead). `command` runs
 * something else, such as `npm start`.
 */
export class AppProcess {
  readonly output: string[] = [];
  private exited?: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    /** The address it is reached at: loopback, or its host's address in a test's rig of hosts. */
    readonly host = '127.0.0.1',
    private readonly reportFile?: string,
  ) {
    const collect = (chunk: Buffer) => this.output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /**
   * `on`: run it in a network namespace (a host of test/support/hosts.ts), reached at its address
   * there; its PORT is then the host's own (every host has its ports to itself).
   */
  static async start(
    env: Record<string, string>,
    command?: string[],
    on?: { netns: string; address: string },
  ): Promise<AppProcess> {
    const port = env.PORT ? Number(env.PORT) : on ? 3000 : await freePort();
    // Where the app writes Node's diagnostic report when a test asks it for one (`report`).
    const reportFile = command ? undefined : path.join(tmpdir(), `app-report-${randomBytes(6).toString('hex')}.json`);
    const [executable, ...args] = [
      ...(on ? ['ip', 'netns', 'exec', on.netns] : []),
      ...(command ?? [
        process.execPath,
        '--report-on-signal',
        `--report-directory=${path.dirname(reportFile!)}`,
        `--report-filename=${path.basename(reportFile!)}`,
        '-r',
        '@swc-node/register',
        'src/main.ts',
      ]),
    ];
    const child = spawn(executable, args, {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        REDIS_URL: TEST_REDIS_URL,
        LOG_LEVEL: 'info',
        ...testAppEnv(),
        ...env,
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // So that `npm start` and its node child are signalled together (`ip netns exec` becomes the node it runs).
      detached: command !== undefined || on !== undefined,
    });
    return new AppProcess(child, port, on?.address, reportFile);
  }

  get url(): string {
    return `http://${this.host}:${this.port}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The exit code, once the process has ended. */
  exitCode(timeoutMs = 20_000): Promise<number | null> {
    return Promise.race([
      this.exited!,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`still running after ${timeoutMs} ms:\n${this.tail()}`)), timeoutMs).unref(),
      ),
    ]);
  }

  signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode !== null) return;
    if (this.child.spawnargs[0] !== process.execPath) process.kill(-this.child.pid!, signal);
    else this.child.kill(signal);
  }

  /**
   * Signals only the process that was started (`npm`, say), not the processes it started: what a
   * process manager, or Ctrl-C in a shell that signals only its child, does.
   */
  signalLeader(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null) this.child.kill(signal);
  }

  /** Whether any process of its group (the one started, or anything it started) is still running. */
  get anyAlive(): boolean {
    try {
      process.kill(this.child.spawnargs[0] !== process.execPath ? -this.child.pid! : this.child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    this.signal('SIGKILL');
    await this.exited;
  }

  /** Waits until the process answers its health check with 200; a timeout shows the end of its output. */
  async untilHealthy(timeoutMs: number): Promise<void> {
    let last = 'no answer';
    try {
      await eventually(
        async () => {
          const answer = await this.get('/health');
          last = `${answer.status} ${JSON.stringify(answer.body)}`;
          return answer.status === 200;
        },
        { timeoutMs, intervalMs: 250 },
      );
    } catch (error) {
      throw new Error(
        `process ${this.pid} was not healthy within ${timeoutMs} ms (last /health: ${last}):\n${this.tail()}\n` +
          (await this.report()),
        { cause: error },
      );
    }
  }

  /**
   * What the process is doing now, from Node's diagnostic report (written on SIGUSR2): its
   * JavaScript stack and its open handles (sockets with their ends, timers, servers). For a
   * failure's message: a start that never listens says what it waits on.
   */
  async report(): Promise<string> {
    if (!this.reportFile || this.child.exitCode !== null || this.child.signalCode !== null) return 'no report';
    try {
      this.child.kill('SIGUSR2');
      const text = await eventually(() => readFile(this.reportFile!, 'utf8'), { timeoutMs: 5_000, intervalMs: 100 });
      const report = JSON.parse(text) as {
        javascriptStack?: { message?: string; stack?: string[] };
        libuv?: Array<{ type: string; is_active: boolean; localEndpoint?: Endpoint; remoteEndpoint?: Endpoint }>;
      };
      const end = (at?: Endpoint) => (at ? `${at.host ?? at.ip4 ?? at.ip6}:${at.port}` : '-');
      const active = (report.libuv ?? []).filter((handle) => handle.is_active);
      const sockets = active
        .filter((handle) => handle.localEndpoint || handle.remoteEndpoint)
        .map((handle) => `${handle.type} ${end(handle.localEndpoint)} -> ${end(handle.remoteEndpoint)}`);
      const others = new Map<string, number>();
      for (const { type } of active.filter((handle) => !handle.localEndpoint && !handle.remoteEndpoint))
        others.set(type, (others.get(type) ?? 0) + 1);
      const stack = report.javascriptStack?.stack?.slice(0, 8) ?? [];
      return [
        `its report: ${report.javascriptStack?.message ?? ''}`,
        ...stack,
        `its sockets: ${sockets.join('; ') || 'none'}`,
        `its other handles: ${[...others].map(([type, n]) => `${type} x${n}`).join(', ')}`,
      ].join('\n');
    } catch (error) {
      return `no report: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      await rm(this.reportFile, { force: true });
    }
  }

  async waitForLine(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    return eventually(
      () => {
        const line = this.output.find((text) => pattern.test(text));
        if (!line) throw new Error(`no line matching ${pattern} yet:\n${this.tail()}`);
        return line;
      },
      { timeoutMs, intervalMs: 50 },
    );
  }

  async get(pathname: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${this.url}${pathname}`, { headers });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body };
  }

  tail(lines = 20): string {
    return this.output.slice(-lines).join('\n');
  }
}
