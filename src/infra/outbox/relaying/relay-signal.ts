import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { describeError } from '../../errors';
import { OutboxCommits } from '../publishing/outbox-commits';
import { outboxConfig, type OutboxConfig } from '../outbox.config';
import { OUTBOX_CHANNEL, OutboxRelay } from './outbox.relay';

/**
 * Tells a relay that committed outbox rows are waiting, so that it need not wait for its timer.
 *
 * After a commit that left messages for a relay (OutboxCommits), a process that runs a relay wakes it
 * directly, and a process that runs none (an api-only replica) wakes the others with NOTIFY. That
 * NOTIFY is sent outside any business transaction, because inside one it would cost every
 * producer a global lock at commit (measured at over 40% of their commit rate), and at most once
 * per OUTBOX_NOTIFY_WINDOW_MS: the first commit of a window notifies at once, the others of that
 * window share one notification at its end. A lost signal only costs latency; every relay's timer still
 * finds every row.
 */
@Injectable()
export class RelaySignal implements OnApplicationShutdown {
  private readonly logger = new Logger('RelaySignal');
  private lastSentAt = 0;
  private pending?: NodeJS.Timeout;

  constructor(
    private readonly dataSource: DataSource,
    commits: OutboxCommits,
    private readonly relay: OutboxRelay,
    @Inject(outboxConfig.KEY) private readonly config: OutboxConfig,
  ) {
    commits.listen(({ queued }) => {
      if (queued > 0) this.signal();
    });
  }

  private signal(): void {
    if (this.relay.active) this.relay.wake();
    // The logical relay needs no signal: the commit reaches it through the WAL.
    else if (this.config.notify && this.config.relay === 'polling') this.notify();
  }

  private notify(): void {
    if (this.pending) return;
    const wait = this.lastSentAt + this.config.notifyWindowMs - Date.now();
    if (wait > 0) {
      this.pending = setTimeout(() => {
        this.pending = undefined;
        this.send();
      }, wait);
      return;
    }
    this.send();
  }

  private send(): void {
    this.lastSentAt = Date.now();
    this.dataSource
      .query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL])
      .catch((error: unknown) => this.logger.debug(`NOTIFY failed: ${describeError(error)}`));
  }

  onApplicationShutdown(): void {
    clearTimeout(this.pending);
  }
}
