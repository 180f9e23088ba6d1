import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { CheckoutClient, LEFT } from '../support/checkout-client';
import { QUIET_ENV, quiet } from '../support/quiet';
import { TestApp } from '../support/test-app';

const WELCOME = 'notifications.send-welcome-email';

/** The SMTP client's waits for a connection and for the greeting; silence is allowed longer, so the greeting's fails first. */
const SMTP_TIMEOUT_MS = 300;
const SMTP_SOCKET_TIMEOUT_MS = 1_000;

/**
 * An SMTP server that takes every connection and never says a word: no greeting, no answer. It
 * counts the connections it saw, which is how many hand-overs were tried.
 */
class SilentServer {
  connections = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((socket) => {
    this.connections += 1;
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
  });

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The SMTP server is an outside service: its failures are the delivery's, whatever error code the
 * SMTP client gives them (a timeout says ETIMEDOUT, as a lost Postgres does), so they spend
 * attempts and end in a dead letter, as any failing handler's do. Only Postgres and Redis out of
 * reach postpone a delivery without spending an attempt. Each attempt waits for the server at
 * most the SMTP timeouts, inside the handler's open transaction.
 */
describe('A welcome email to an SMTP server that never greets', () => {
  let server: SilentServer;
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    server = new SilentServer();
    await server.listen();
    app = await TestApp.start({
      env: {
        ...QUIET_ENV,
        SMTP_URL: server.url,
        SMTP_CONNECTION_TIMEOUT_MS: String(SMTP_TIMEOUT_MS),
        SMTP_GREETING_TIMEOUT_MS: String(SMTP_TIMEOUT_MS),
        SMTP_SOCKET_TIMEOUT_MS: String(SMTP_SOCKET_TIMEOUT_MS),
        OUTBOX_ATTEMPTS: '2',
        OUTBOX_BACKOFF_MS: '20',
        OUTBOX_RELAY_INTERVAL_MS: '50',
        SAGA_STEP_ATTEMPTS: '2',
        SAGA_STEP_TIMEOUT_MS: '2000',
        SAGA_SWEEP_INTERVAL_MS: '50',
      },
    });
    client = new CheckoutClient(app);
  });
  afterAll(async () => {
    await app.stop();
    await server.close();
  });

  beforeEach(() => (server.connections = 0));

  it('when the server accepts and never greets, then each attempt fails within the SMTP timeouts and the second is a dead letter', async () => {
    const id = await client.start({ userId: (await client.createUser()).id, mode: 'choreography' });

    // Postponed as an outage, the delivery would wait forever and the checkout stay PENDING.
    expect(await client.until(id, ['INTERVENTION'], 15_000)).toMatchObject({ step: WELCOME });
    await quiet(app);

    const attempts = await app.database.query<{ attempt: number; outcome: string; error: string }>(
      `SELECT a.attempt, a.outcome, a.error FROM outbox.delivery_attempts a JOIN outbox.messages m ON m.id = a.message_id
        WHERE m.aggregate_id = $1 AND a.consumer = $2 ORDER BY a.attempt`,
      [id, WELCOME],
    );
    expect(attempts).toEqual([
      { attempt: 1, outcome: 'failed', error: expect.stringContaining('Greeting never received') },
      { attempt: 2, outcome: 'dead', error: expect.stringContaining('Greeting never received') },
    ]);
    const deadLetters = await app.database.query<{ attempts: number; error: string }>(
      `SELECT l.attempts, l.error FROM outbox.dead_letters l JOIN outbox.messages m ON m.id = l.message_id
        WHERE m.aggregate_id = $1 AND l.consumer = $2 AND l.status = 'dead'`,
      [id, WELCOME],
    );
    expect(deadLetters).toEqual([{ attempts: 2, error: expect.stringContaining('smtp') }]);
    // One connection an attempt, and none after the dead letter.
    expect(server.connections).toBe(2);
    expect(await client.leftTheSystem(id)).toEqual({ ...LEFT.sold, welcomeEmails: 0 });
  });

  it('when the server never greets an orchestrated checkout, then each command is answered with its failure and a person is asked after the last', async () => {
    const id = await client.start({ userId: (await client.createUser()).id, mode: 'orchestration' });

    expect(await client.until(id, ['INTERVENTION'], 15_000)).toMatchObject({ step: WELCOME });
    await quiet(app);

    const failures = await app.database.query<{ error: string }>(
      `SELECT payload->>'error' AS error FROM outbox.messages
        WHERE type = 'notifications.step-failed.v1'
          AND correlation_id = (SELECT correlation_id FROM checkout.checkouts WHERE id = $1)`,
      [id],
    );
    expect(failures).toEqual([
      { error: expect.stringContaining('Greeting never received') },
      { error: expect.stringContaining('Greeting never received') },
    ]);
    expect(server.connections).toBe(2);
    expect(await client.leftTheSystem(id)).toEqual({ ...LEFT.sold, welcomeEmails: 0 });
  });
});
