import { Inject, Injectable, Logger } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { describeError } from '../errors';
import { metricsConfig, type MetricsConfig } from './metrics.config';
import { SharedReading } from './shared-reading';

/**
 * The app's Prometheus registry. One per app rather than prom-client's global one, so that two
 * apps in one process (as in tests) never register the same metric twice.
 */
@Injectable()
export class MetricsRegistry extends Registry {
  private readonly logger = new Logger('Metrics');

  constructor(@Inject(metricsConfig.KEY) private readonly config: MetricsConfig) {
    super();
    collectDefaultMetrics({ register: this });
  }

  /**
   * What a gauge reads from Postgres or Redis at a scrape, read at most once every
   * METRICS_READ_INTERVAL_MS whatever the scrapes' rate (ADR 0078): a flood of scrapes costs the
   * stores what one scrape does.
   */
  reading<T>(name: string, read: () => Promise<T>): SharedReading<T> {
    return new SharedReading(read, this.config.readIntervalMs, (error) =>
      this.logger.debug(`metrics reading ${name} failed: ${describeError(error)}`),
    );
  }
}
