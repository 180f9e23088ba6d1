import { Client } from 'pg';
import { BENCH_DATABASE_URL } from './bench-env';

/**
 * Autovacuum's part, where the server has it off (a test machine's setting; Postgres's default is
 * on): `VACUUM (ANALYZE)` of the bench database every so many seconds (BENCH_VACUUM_SECONDS), as an autovacuum set for
 * queue-like tables would do. Without it the outbox's and the read model's dead rows pile up for
 * the whole run, and the plans that prepared statements keep, made while the tables were empty,
 * are never made again (only ANALYZE does that): each checkout then costs Postgres more than the
 * one before, which no user with autovacuum on sees. Its CPU counts as Postgres's.
 */
export class VacuumStandIn {
  vacuums = 0;
  ms = 0;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private held = false;

  private constructor(private readonly client: Client) {}

  /** Starts one, every `everySeconds`, when the server does not vacuum on its own and that is not 0. */
  static async start(everySeconds: number): Promise<VacuumStandIn | undefined> {
    if (everySeconds <= 0) return undefined;
    const client = new Client({ connectionString: BENCH_DATABASE_URL });
    await client.connect();
    const { rows } = await client.query<{ autovacuum: string }>('SHOW autovacuum');
    if (rows[0].autovacuum === 'on') {
      await client.end();
      return undefined;
    }
    const standIn = new VacuumStandIn(client);
    standIn.timer = setInterval(() => {
      if (!standIn.held) standIn.running ??= standIn.vacuum().finally(() => (standIn.running = undefined));
    }, everySeconds * 1_000);
    return standIn;
  }

  /** A VACUUM that fails (its connection lost, say) is neither counted nor timed. */
  private async vacuum(): Promise<void> {
    const started = Date.now();
    const done = await this.client.query('VACUUM (ANALYZE)').then(
      () => true,
      () => false,
    );
    if (!done) return;
    this.vacuums += 1;
    this.ms += Date.now() - started;
  }

  /**
   * Runs `work` with no VACUUM under way: the idle app's window, whose costs are taken off every
   * window after it. A VACUUM there would be charged to no checkout; in a window it is charged to
   * the checkouts whose dead rows it clears, as autovacuum's work would be.
   */
  async without<T>(work: () => Promise<T>): Promise<T> {
    this.held = true;
    try {
      await this.running;
      return await work();
    } finally {
      this.held = false;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.client.end();
  }
}
