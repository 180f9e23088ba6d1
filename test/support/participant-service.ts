import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect } from 'node:net';
import type { ParticipantConfig } from '../../participants/common/config';
import type { FaultRule } from '../../participants/common/lab/fault-rules';
import { eventually } from './eventually';
import { dropDatabase, TestDatabase } from './test-database';
import { runDatabasePrefix, TEST_DATABASE_URL, withDatabaseName } from './test-env';

/** How a participant is started here: made and migrated by its own step, then made an app. */
export interface ParticipantStart {
  /** A word for its database's name, and for failures. */
  name: string;
  migrate(databaseUrl: string): Promise<unknown>;
  /** The app, on a free port of this host, over the database made for it, quiet but for errors. */
  create(config: ParticipantConfig): Promise<NestExpressApplication>;
  /** The bearer of its admin API, if it has one. */
  adminToken: string | undefined;
}

/**
 * A participant service, in this process, on a free port, over a database of its own (made and
 * migrated here by the service's own step, dropped at the end): the app and the tests reach it
 * over HTTP only, as they would reach it anywhere.
 */
export class RunningParticipant<Rule extends FaultRule = FaultRule> {
  /** Its database, opened for a test that looks at what it wrote. */
  private storage: TestDatabase | undefined;

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
    const app = await start.create({ port: 0, host: '127.0.0.1', databaseUrl, adminToken: start.adminToken });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    return [app, databaseName, `http://127.0.0.1:${port}`, start];
  }

  /** Its own database, for a test that looks at what it wrote (the app never reads it). */
  get databaseUrl(): string {
    return withDatabaseName(TEST_DATABASE_URL, this.databaseName);
  }

  /** Reads its own database (the app never does): what a test checks it wrote, or its clock. */
  async query<Row extends object>(sql: string, params: unknown[] = []): Promise<Row[]> {
    this.storage ??= TestDatabase.at(this.databaseUrl);
    return this.storage.query<Row>(sql, params);
  }

  /** How many rows `tables` hold together: what a refused request must leave as it was. */
  async rowsIn(...tables: string[]): Promise<number> {
    const counts = tables.map((table) => `(SELECT count(*) FROM ${table})`).join(' + ');
    return (await this.query<{ n: number }>(`SELECT (${counts})::int AS n`))[0].n;
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
  async fault(rule: Partial<Rule> & Pick<Rule, 'fault'>): Promise<void> {
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

  /** What the service lists under `/v1/references/<reference>/<what>`: where the tests count. */
  protected async listing<T>(reference: string, what: string): Promise<T[]> {
    const { status, body } = await this.request('GET', `/v1/references/${encodeURIComponent(reference)}/${what}`);
    if (status !== 200) throw new Error(`the ${this.started.name} did not list ${reference}: ${status}`);
    return body[what] as T[];
  }

  async clearFaults(): Promise<void> {
    await this.admin('DELETE');
  }

  async stop(): Promise<void> {
    await this.storage?.drop();
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

/**
 * For the tests of a participant, or of a client of one: the service `start`ed before them and
 * stopped after, and in each test fetch watched and the faults cleared. `requestsTo` counts the
 * requests sent to a path under /v1 by `method`: a client's attempts, counted where they leave.
 */
export function aroundParticipantTests<Service extends RunningParticipant>(start: () => Promise<Service>) {
  let service: Service | undefined;
  let fetched: jest.SpiedFunction<typeof fetch> | undefined;
  beforeAll(async () => {
    service = await start();
  });
  beforeEach(() => {
    fetched = jest.spyOn(globalThis, 'fetch');
  });
  afterEach(async () => {
    fetched?.mockRestore();
    await service?.clearFaults();
  });
  afterAll(() => service?.stop());
  return {
    service: (): Service => service!,
    requestsTo: (path: string, method = 'POST'): number =>
      fetched!.mock.calls.filter(([url, init]) => String(url).endsWith(`/v1/${path}`) && init?.method === method)
        .length,
  };
}
