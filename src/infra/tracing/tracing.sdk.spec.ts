import { tracingRequested } from './tracing.sdk';

describe('tracingRequested', () => {
  it('when no OTEL variable names an exporter, then tracing stays off', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'checkout' })).toBe(false);
  });

  it('when an exporter or an OTLP endpoint is configured, then tracing starts', () => {
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://jaeger:4318/v1/traces' })).toBe(true);
  });

  it('when the exporter is none or the SDK is disabled, then tracing stays off whatever else is set', () => {
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' })).toBe(
      false,
    );
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
  });
});
