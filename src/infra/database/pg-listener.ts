import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { describeError } from '../errors';

/** How long a LISTEN waits for its own probe; a notification takes milliseconds. */
const PROBE_MS = 2_000;

/**
 * A dedicated connection that LISTENs on one channel and reconnects by itself. A notification is
 * only a hint to look now: whoever listens must also look on a timer, so that a notification
 * lost while reconnecting costs latency, never a message.
 *
 * Each time it starts listening, it sends itself a probe NOTIFY from another connection. A LISTEN
 * through a transaction-mode pooler is registered on a server connection that the pooler then
 * hands to other clients, and hears nothing: the probe goes unheard, and it says so in one line
 * (DATABASE_DIRECT_URL must lead to Postgres itself, ADR 0072) rather than leave every
 * notification to the timer without a word.
 */
export class PgListener {
  private readonly logger = new Logger('PgListener');
  /** The connection in use, or being opened. */
  private client?: Client;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private down = false;
  /** The payload of the probe in flight, and what to call when it is heard. */
  private probe?: { payload: string; heard: () => void };
  /** Whether the last probe was heard; undefined until one has been sent and waited for. */
  hearsProbe?: boolean;
  /** Notifications heard (probes aside), each a wake-up. */
  heard = 0;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onNotify: () => void,
    private readonly retryMs = 1_000,
  ) {}

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.url, application_name: `listen:${this.channel}` });
    let gone = false;
    const lose = (error?: unknown) => {
      if (gone) return;
      gone = true;
      this.lost(client, error);
    };
    client.on('notification', ({ payload }) => {
      if (this.probe && payload === this.probe.payload) this.probe.heard();
      else {
        this.heard += 1;
        this.onNotify();
      }
    });
    client.on('error', lose);
    client.on('end', () => lose());
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      if (this.down) this.logger.log(`Listening on ${this.channel} again`);
      this.down = false;
      // Whatever was committed while we were away is picked up now.
      this.onNotify();
    } catch (error) {
      lose(error);
      return;
    }
    await this.checkHeard(client);
  }

  /** Sends a probe NOTIFY from another connection and waits for this one to hear it. */
  private async checkHeard(listening: Client): Promise<void> {
    const payload = `probe:${randomBytes(6).toString('hex')}`;
    let heard!: () => void;
    const wasHeard = new Promise<boolean>((resolve) => {
      heard = () => resolve(true);
      setTimeout(() => resolve(false), PROBE_MS).unref();
    });
    this.probe = { payload, heard };
    const sender = new Client({ connectionString: this.url, application_name: `probe:${this.channel}` });
    sender.on('error', () => undefined);
    try {
      await sender.connect();
      await sender.query('SELECT pg_notify($1, $2)', [this.channel, payload]);
    } catch (error) {
      this.probe = undefined;
      this.logger.debug(`The probe NOTIFY on ${this.channel} was not sent (${describeError(error)})`);
      return;
    } finally {
      void sender.end().catch(() => undefined);
    }
    const ok = await wasHeard;
    this.probe = undefined;
    if (this.stopped || this.client !== listening) return;
    if (!ok && this.hearsProbe !== false) {
      this.logger.error(
        `LISTEN ${this.channel} did not hear its own probe NOTIFY within ${PROBE_MS} ms: its connection goes through a transaction-mode pooler; set DATABASE_DIRECT_URL to Postgres itself (until then the relays only poll)`,
      );
    }
    if (ok && this.hearsProbe === false) this.logger.log(`LISTEN ${this.channel} hears its probe again`);
    this.hearsProbe = ok;
  }

  private lost(client: Client, error?: unknown): void {
    if (this.client === client) this.client = undefined;
    void client.end().catch(() => undefined);
    if (this.stopped) return;
    if (!this.down) {
      this.logger.warn(
        `Lost LISTEN ${this.channel} (${error ? describeError(error) : 'connection ended'}); reconnecting`,
      );
    }
    this.down = true;
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.client?.end().catch(() => undefined);
  }
}
