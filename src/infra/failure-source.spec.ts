import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { createTransport } from 'nodemailer';
import { Pool } from 'pg';
import { isDatabaseUnavailable } from './database/database-unavailable';
import { callOutside, isOutsideFailure, OutsideFailure } from './failure-source';
import { AnsweredFailure } from './outbox/consuming/answered-failure';
import { isUnreachable } from './outbox/unreachable';

/** A TCP server that takes connections and never says a word. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: one the system just gave out and took back. */
async function stoppedPort(): Promise<number> {
  const { port, close } = await silentServer();
  await close();
  return port;
}

/** What sending through nodemailer to 127.0.0.1:`port` throws, through callOutside or not. */
async function smtpFailure(port: number, outside = true): Promise<unknown> {
  const transporter = createTransport({
    url: `smtp://127.0.0.1:${port}`,
    connectionTimeout: 200,
    greetingTimeout: 200,
    socketTimeout: 1_000,
  });
  const send = () =>
    transporter.sendMail({ from: 'shop@checkout.local', to: 'buyer@example.com', subject: 'hello', text: 'hello' });
  try {
    await (outside ? callOutside('smtp', send) : send());
  } catch (error) {
    return error;
  } finally {
    transporter.close();
  }
  throw new Error('the email was sent');
}

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('Whose failure it is', () => {
  it('when an SMTP server accepts and never greets, then the timeout (ETIMEDOUT) is the outside service’s, not an outage', async () => {
    const server = await silentServer();
    try {
      const error = await smtpFailure(server.port);

      expect(error).toBeInstanceOf(OutsideFailure);
      expect((error as OutsideFailure).cause).toMatchObject({ code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT' });
      expect(isUnreachable(error)).toBe(false);
      expect(isDatabaseUnavailable(error)).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('when nothing listens where the SMTP server should, then the refusal is the outside service’s, not an outage', async () => {
    const error = await smtpFailure(await stoppedPort());

    expect((error as OutsideFailure).cause).toMatchObject({ originalCode: 'ECONNREFUSED' });
    expect(isUnreachable(error)).toBe(false);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('when the same SMTP call is made without callOutside, then its timeout reads as an outage (why the call is marked)', async () => {
    const server = await silentServer();
    try {
      const error = await smtpFailure(server.port, false);

      expect(isUnreachable(error)).toBe(true);
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('when Postgres does not listen, then a pg Pool’s error is still an outage', async () => {
    const pool = new Pool({
      host: '127.0.0.1',
      port: await stoppedPort(),
      user: 'postgres',
      connectionTimeoutMillis: 1_000,
    });
    try {
      const error = await pool.query('SELECT 1').then(
        () => new Error('Postgres answered'),
        (thrown: unknown) => thrown,
      );

      expect(isOutsideFailure(error)).toBe(false);
      expect(isUnreachable(error)).toBe(true);
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it('when an outside failure is wrapped, even by an error quoting a message that reads as Redis’, then it stays the outside service’s', () => {
    const outside = new OutsideFailure('card-gateway', withCode('Connection is closed.', 'ECONNRESET'));
    const answered = new AnsweredFailure(outside, () => Promise.resolve());
    const query = Object.assign(new Error('query failed'), { driverError: outside });

    expect(isUnreachable(answered)).toBe(false);
    expect(isUnreachable(query)).toBe(false);
    expect(isDatabaseUnavailable(answered)).toBe(false);
    expect(isUnreachable(new AggregateError([outside, outside]))).toBe(false);
  });

  it('when an AggregateError holds an outside failure beside a lost Postgres connection, then the outage counts', () => {
    const outside = new OutsideFailure('smtp', withCode('connect ECONNREFUSED', 'ECONNREFUSED'));
    const postgres = withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');

    expect(isUnreachable(new AggregateError([outside, postgres]))).toBe(true);
  });

  it('when callOutside wraps a call that throws an outside failure already, then it keeps the first service’s name', async () => {
    const inner = new OutsideFailure('smtp', new Error('550 no such user'));

    await expect(callOutside('mail', () => Promise.reject(inner))).rejects.toBe(inner);
    await expect(callOutside('mail', () => Promise.resolve(7))).resolves.toBe(7);
  });
});
