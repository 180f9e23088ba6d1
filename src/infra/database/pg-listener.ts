import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { describeError } from '../errors';

/**
 * A dedicated connection that LISTENs on one channel and reconnects by itself. A notification is
 * only a hint to look now: whoever listens must also look on a timer, so that a notification
 * lost while reconnecting costs latency, never a message.
 */
export class PgListener {
  private readonly logger = new Logger('PgListener');
  /** The connection in use, or being opened. */
  private client?: Client;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private down = false;

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
    client.on('notification', () => this.onNotify());
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
    }
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
