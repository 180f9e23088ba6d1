import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from './tracing.sdk';

/** Exports the spans still buffered when the app closes (the SDK itself starts before Nest). */
@Injectable()
class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing().catch(() => undefined);
  }
}

@Module({ providers: [TracingShutdown] })
export class TracingModule {}
