import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect } from 'node:net';
import type { FaultRule } from '../../participants/common/lab/fault-rules';
import { eventually } from './eventually';
import { dropDatabase } from './test-database';
import { runDatabasePrefix, TEST_DATABASE_URL, withDatabaseName } from './test-env';

/** How a participant is started here: made and migrated by its own step, then made an app. */
export interface ParticipantStart {
  /** A word for its database's name, and for failures. */
  name: string;
  migrate(databaseUrl: string): Promise<unknown>;
  create(databaseUrl: string): Promise<NestExpressApplication>;
  /** The bearer of its admin API, if it has one. */
  adminToken: string | undefined;
}

/**
 * A participant service, in this process, on a free port, over a database of its own (made and
 * migrated here by the service's own step, dropped at the end): the app and the tests reach it
 * over HTTP only, as they would reach it anywhere.
 */
export class RunningParticipant {
  protected constructor(
    private readonly app: NestExpressApplication,
    readonly databaseName: string,
    readonly url: string,
    private readonly started: ParticipantStart,
  ) {}

  /** Starts it: what a subclass's `start` makes itself from. */
  protected static async launch(
    start: ParticipantStart,
  ): Promise<[NestExpressApplication, string, string, ParticipantStart]> {
    const databaseName = `${runDatabasePrefix()}${start.name}_${process.env.JEST_WORKER_ID ?? 0}_${randomBytes(3).toString('hex')}`;
    const databaseUrl = withDatabaseName(TEST_DATABASE_URL, databaseName);
    await start.migrate(databaseUrl);
    const app = await start.create(databaseUrl);
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    return [app, databaseName, `http://127.0.0.1:${port}`, start];
  }

  /** Its own database, for a test that looks at what it wrote (the app never reads it). */
  get databaseUrl(): string {
    return withDatabaseName(TEST_DATABASE_URL, this.databaseName);
  }

  /** Sends one request to the service, as any client would. */
  async request(
    method: string,
    path: string,
    { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : {} };
  }

  /** Sets one fault over the admin API; fails unless the service took it. */
  async fault(rule: FaultRule): Promise<void> {
    const { status, body } = await this.admin('POST', rule);
    if (status !== 201)
      throw new Error(`the ${this.started.name} refused the fault: ${status} ${JSON.stringify(body)}`);
    // The connection that carried the fault is closed once answered; a request sent on it before
    // its close is heard would be cut off, not refused. Refused afresh, every old one is gone.
    if (rule.fault === 'down' && (rule.mode ?? 'refuse') === 'refuse') await untilRefused(new URL(this.url));
  }

  /** Until every request it took in has been answered (a held one processed, a late one sent). */
  async untilAnswered(): Promise<void> {
    await eventually(async () => (await this.admin('GET')).body.inFlight === 0, {
      timeoutMs: 20_000,
      what: `the ${this.started.name} to answer every request it took in`,
    });
  }

  async clearFaults(): Promise<void> {
    await this.admin('DELETE');
  }

  async stop(): Promise<void> {
    await this.app.close();
    await dropDatabase(this.databaseName);
  }

  /** A request to its admin API, as its bearer. */
  protected admin(method: string, body?: unknown) {
    return this.request(method, '/admin/faults', {
      body,
      headers: { authorization: `Bearer ${this.started.adminToken}` },
    });
  }
}

/** Until a new connection to `url` is refused (the service stopped listening). */
async function untilRefused(url: URL): Promise<void> {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
