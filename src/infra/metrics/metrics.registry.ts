import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The app's Prometheus registry. One per app rather than prom-client's global one, so that two
 * apps in one process (as in tests) never register the same metric twice.
 */
@Injectable()
export class MetricsRegistry extends Registry {
  constructor() {
    super();
    collectDefaultMetrics({ register: this });
  }
}
