import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { type AddressInfo, connect } from 'node:net';
import { createCardGateway } from '../../participants/card-gateway/card-gateway.module';
import { migrateCardGateway } from '../../participants/card-gateway/database/migrate';
import type { OperationRecord } from '../../participants/card-gateway/domain/operations';
import type { FaultRule } from '../../participants/card-gateway/lab/fault-rules';
import { eventually } from './eventually';
import { dropDatabase } from './test-database';
import { runDatabasePrefix, TEST_DATABASE_URL, withDatabaseName } from './test-env';

export const GATEWAY_ADMIN_TOKEN = 'test-gateway-admin-token-0123456789';

/** Approved operations of one reference, by operation: the effects, counted where a 2 can show up. */
export interface Effects {
  authorize: number;
  capture: number;
  void: number;
  refund: number;
}

/**
 * The card gateway service, in this process, on a free port, over a database of its own (made and
 * migrated here by the service's own step, dropped at the end): the app and the tests reach it
 * over HTTP only, as they would reach it anywhere.
 */
export class RunningCardGateway {
  private constructor(
    private readonly app: NestExpressApplication,
    readonly databaseName: string,
    readonly url: string,
  ) {}

  /** `voidsByKey: false`: the profile of a gateway that voids by authorization id only. */
  static async start({ voidsByKey = true }: { voidsByKey?: boolean } = {}): Promise<RunningCardGateway> {
    const databaseName = `${runDatabasePrefix()}gateway_${process.env.JEST_WORKER_ID ?? 0}_${randomBytes(3).toString('hex')}`;
    const databaseUrl = withDatabaseName(TEST_DATABASE_URL, databaseName);
    await migrateCardGateway(databaseUrl);
    const app = await createCardGateway(
      { port: 0, host: '127.0.0.1', databaseUrl, adminToken: GATEWAY_ADMIN_TOKEN, voidsByKey },
      ['error'],
    );
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    return new RunningCardGateway(app, databaseName, `http://127.0.0.1:${port}`);
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
  async fault(rule: Partial<FaultRule> & Pick<FaultRule, 'fault'>): Promise<void> {
    const { status, body } = await this.admin('POST', rule);
    if (status !== 201) throw new Error(`the gateway refused the fault: ${status} ${JSON.stringify(body)}`);
    // The connection that carried the fault is closed once answered; a request sent on it before
    // its close is heard would be cut off, not refused. Refused afresh, every old one is gone.
    if (rule.fault === 'down' && (rule.mode ?? 'refuse') === 'refuse') await untilRefused(new URL(this.url));
  }

  /** Until every request it took in has been answered (a held one processed, a late one sent). */
  async untilAnswered(): Promise<void> {
    await eventually(async () => (await this.admin('GET')).body.inFlight === 0, {
      timeoutMs: 20_000,
      what: 'the gateway to answer every request it took in',
    });
  }

  async clearFaults(): Promise<void> {
    await this.admin('DELETE');
  }

  /** Every operation the service filed under a reference. */
  async operations(reference: string): Promise<OperationRecord[]> {
    const { status, body } = await this.request('GET', `/v1/references/${encodeURIComponent(reference)}/operations`);
    if (status !== 200) throw new Error(`the gateway did not list ${reference}: ${status}`);
    return body.operations as OperationRecord[];
  }

  /** The approved operations under a reference, counted by operation. */
  async effects(reference: string): Promise<Effects> {
    const approved = (await this.operations(reference)).filter((operation) => operation.approved);
    const count = (name: string) => approved.filter((operation) => operation.operation === name).length;
    return { authorize: count('authorize'), capture: count('capture'), void: count('void'), refund: count('refund') };
  }

  async stop(): Promise<void> {
    await this.app.close();
    await dropDatabase(this.databaseName);
  }

  private admin(method: string, body?: unknown) {
    return this.request(method, '/admin/faults', { body, headers: { authorization: `Bearer ${GATEWAY_ADMIN_TOKEN}` } });
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
