import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { freePort } from './app-process';
import { eventually } from './eventually';

/**
 * A Redis of the test's own that speaks TLS only (no plaintext port), with a certificate signed by
 * a certificate authority made for it, and an ACL user with a password (the default user is off).
 * `caFile` is what a client must trust; a client that does not trust it cannot connect.
 */
export class RedisTlsServer {
  private process?: ChildProcess;

  private constructor(
    readonly port: number,
    private readonly dir: string,
    readonly auth: { username: string; password: string },
  ) {}

  static async start(auth: { username: string; password: string }): Promise<RedisTlsServer> {
    const dir = mkdtempSync(join(tmpdir(), 'redis-tls-'));
    makeCertificates(dir);
    const server = new RedisTlsServer(await freePort(), dir, auth);
    writeFileSync(join(dir, 'users.acl'), `user default off\nuser ${auth.username} on >${auth.password} ~* &* +@all\n`);
    server.process = spawn(
      'redis-server',
      [
        '--port',
        '0',
        '--tls-port',
        String(server.port),
        '--bind',
        '127.0.0.1',
        '--tls-cert-file',
        join(dir, 'server.crt'),
        '--tls-key-file',
        join(dir, 'server.key'),
        '--tls-ca-cert-file',
        join(dir, 'ca.crt'),
        '--tls-auth-clients',
        'no',
        '--aclfile',
        join(dir, 'users.acl'),
        '--save',
        '',
        '--appendonly',
        'no',
      ],
      { stdio: 'ignore' },
    );
    await eventually(() => server.command((client) => client.ping()), { timeoutMs: 30_000, intervalMs: 100 });
    return server;
  }

  get caFile(): string {
    return join(this.dir, 'ca.crt');
  }

  /** The URL the app is given: rediss://, the ACL user and password, the name the certificate holds. */
  get url(): string {
    return `rediss://${this.auth.username}:${this.auth.password}@localhost:${this.port}`;
  }

  /** A client that trusts the test's certificate authority. */
  client(): IORedis {
    return new IORedis(this.url, { tls: { ca: readFileSync(this.caFile) }, maxRetriesPerRequest: null });
  }

  async command<T>(work: (client: IORedis) => Promise<T>): Promise<T> {
    const client = this.client();
    client.on('error', () => undefined);
    try {
      return await work(client);
    } finally {
      client.disconnect();
    }
  }

  async stop(): Promise<void> {
    if (this.process && this.process.exitCode === null) {
      const exited = new Promise((resolve) => this.process!.once('exit', resolve));
      this.process.kill('SIGKILL');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A certificate authority and a server certificate it signed, for localhost and 127.0.0.1. */
function makeCertificates(dir: string): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=test-ca',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'san.ext',
    '-out',
    'server.crt',
  );
}
