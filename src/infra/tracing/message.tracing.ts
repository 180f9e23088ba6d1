import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * How a message's trace survives the outbox. Publishing starts a `create` span whose W3C context
 * (`traceparent`, `tracestate`) is stored in the message's headers; the relay's `send` of each
 * job is its child and puts its own context in the job; the consumer's `process` span is the
 * child of that, and whatever the handler publishes is its child in turn. So one checkout is one
 * trace, whichever process relays or handles each step. Where a batch joins several traces (a
 * relay batch, an inbox group commit), the batch span links to each of them.
 *
 * Names and attributes follow the OpenTelemetry messaging conventions. With no SDK started
 * (see tracing.sdk.ts), every span here is the API's no-op one and the headers get no trace keys.
 */
const tracer = trace.getTracer('checkout-outbox-saga');

export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

/** What the tracing of a message needs to know about it. */
export interface TracedMessage {
  id: string;
  type: string;
  correlationId: string;
  headers: Record<string, string>;
  payload?: unknown;
}

const SYSTEM = 'bullmq';

/** The checkout a message is about, when its payload names one. */
function checkoutIdOf(payload: unknown): string | undefined {
  const id = (payload as { checkoutId?: unknown } | null)?.checkoutId;
  return typeof id === 'string' ? id : undefined;
}

function messageAttributes(message: TracedMessage, operation: string, destination: string): Attributes {
  const checkoutId = checkoutIdOf(message.payload);
  return {
    'messaging.system': SYSTEM,
    'messaging.operation.type': operation,
    'messaging.operation.name': operation,
    'messaging.destination.name': destination,
    'messaging.message.id': message.id,
    // The conventions' name for what this project calls the correlation id.
    'messaging.message.conversation_id': message.correlationId,
    'app.message.type': message.type,
    'app.correlation_id': message.correlationId,
    ...(checkoutId ? { 'app.checkout.id': checkoutId } : {}),
  };
}

/** Headers without any trace context: what a message inherits must not carry an older span's. */
export function withoutTraceContext(headers: Record<string, string> = {}): Record<string, string> {
  const rest = { ...headers };
  for (const key of TRACE_HEADERS) delete rest[key];
  return rest;
}

/** The context that a message's (or a job's) headers carry, on top of the active one. */
export function contextOf(headers: Record<string, string> | undefined, base: Context = context.active()): Context {
  return propagation.extract(base, headers ?? {});
}

function withContextOf(headers: Record<string, string>, span: Span): Record<string, string> {
  const carrier = withoutTraceContext(headers);
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  return carrier;
}

/** Only the trace context of these headers (nothing else of the message's): what a job carries. */
export function traceContextOf(headers: Record<string, string> = {}): Record<string, string> {
  const carrier: Record<string, string> = {};
  for (const key of TRACE_HEADERS) if (typeof headers[key] === 'string') carrier[key] = headers[key];
  return carrier;
}

/**
 * Called as a message is written to the outbox: a `create` span, child of the current unit of
 * work (a request, or the handling of the message that caused this one), and the headers to
 * store, which carry that span's context instead of any inherited one.
 */
export function traceCreate(message: TracedMessage): Record<string, string> {
  // A unit of work without an active span (a timer's) still continues the trace it inherited.
  const parent = trace.getSpan(context.active()) ? context.active() : contextOf(message.headers);
  const span = tracer.startSpan(
    `create ${message.type}`,
    { kind: SpanKind.PRODUCER, attributes: messageAttributes(message, 'create', message.type) },
    parent,
  );
  span.end();
  return withContextOf(message.headers, span);
}

/**
 * A span for work done on behalf of several messages at once. When they all belong to one trace
 * it is a child in that trace; otherwise it starts its own and links to each message's context.
 */
function startBatchSpan(name: string, parents: Context[], attributes: Attributes): Span {
  const links: Link[] = parents.flatMap((parent) => {
    const spanContext = trace.getSpanContext(parent);
    return spanContext ? [{ context: spanContext }] : [];
  });
  const traces = new Set(links.map((link) => link.context.traceId));
  const parent = traces.size === 1 ? parents[0] : ROOT_CONTEXT;
  return tracer.startSpan(name, { kind: SpanKind.INTERNAL, links, attributes }, parent);
}

function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end();
}

/** The relay's trace of one batch: see `traceRelayBatch`. */
export interface RelayTrace {
  /** Starts the `send` span of one delivery; returns its trace context, which the job carries. */
  send(message: TracedMessage, queue: string, consumer: string): Record<string, string>;
  /** Runs the push inside the batch's span, and ends every span of the batch with its outcome. */
  push<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * One relay batch: a `relay outbox` span for the batch (whose Redis commands are its children),
 * and one `send <queue>` span per job, child of its message's `create` span and linked to the batch.
 */
export function traceRelayBatch(messages: TracedMessage[]): RelayTrace {
  const batch = startBatchSpan(
    'relay outbox',
    messages.map((message) => contextOf(message.headers, ROOT_CONTEXT)),
    { 'messaging.system': SYSTEM, 'messaging.batch.message_count': messages.length },
  );
  const sends: Span[] = [];
  return {
    send(message, queue, consumer) {
      const span = tracer.startSpan(
        `send ${queue}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: { ...messageAttributes(message, 'send', queue), 'messaging.consumer.group.name': consumer },
          links: [{ context: batch.spanContext() }],
        },
        contextOf(message.headers, ROOT_CONTEXT),
      );
      sends.push(span);
      return withContextOf({}, span);
    },
    async push(work) {
      try {
        const result = await context.with(trace.setSpan(context.active(), batch), work);
        [...sends, batch].forEach((span) => endSpan(span));
        return result;
      } catch (error) {
        [...sends, batch].forEach((span) => endSpan(span, error));
        throw error;
      }
    },
  };
}

/** The consumer's trace of one delivery attempt: see `traceProcess`. */
export interface ProcessTrace {
  /** The `process` span's trace context, for a batch that handles the delivery to link to. */
  context: Record<string, string>;
  /**
   * Describes the span with the message, once read from the outbox; returns the message's headers
   * carrying the span's context, for the handler to continue.
   */
  read(message: TracedMessage): Record<string, string>;
  end(outcome: string, error?: unknown): void;
}

/**
 * A `process <queue>` span for one delivery attempt, child of the context the job carries (the
 * relay's `send`, so retries and redeliveries of a message are siblings in its trace). The job
 * names only the message: the span learns what it is about when the inbox reads it.
 */
export function traceProcess(
  delivery: { id: string; consumer: string; attempt: number; trace?: Record<string, string> },
  queue: string,
  jobId?: string,
): ProcessTrace {
  const span = tracer.startSpan(
    `process ${queue}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': SYSTEM,
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.destination.name': queue,
        'messaging.message.id': delivery.id,
        'messaging.consumer.group.name': delivery.consumer,
        'app.delivery.attempt': delivery.attempt,
        ...(jobId ? { 'app.delivery.job': jobId } : {}),
      },
    },
    contextOf(delivery.trace, ROOT_CONTEXT),
  );
  return {
    context: withContextOf({}, span),
    read(message) {
      span.setAttributes(messageAttributes(message, 'process', queue));
      return withContextOf(message.headers, span);
    },
    end(outcome, error) {
      span.setAttribute('app.delivery.outcome', outcome);
      endSpan(span, error);
    },
  };
}

/** Runs `work` as part of the trace that the headers carry (a handler, in its delivery's span). */
export function continueTrace<T>(headers: Record<string, string> | undefined, work: () => T): T {
  return context.with(contextOf(headers, ROOT_CONTEXT), work);
}

/**
 * One inbox transaction shared by several deliveries of a queue (a group commit): its queries are
 * children of an `inbox <queue>` span linked to each delivery's `process` span.
 */
export function traceInboxBatch<T>(
  queue: string,
  headers: Array<Record<string, string>>,
  work: () => Promise<T>,
): Promise<T> {
  const span = startBatchSpan(
    `inbox ${queue}`,
    headers.map((each) => contextOf(each, ROOT_CONTEXT)),
    {
      'messaging.system': SYSTEM,
      'messaging.destination.name': queue,
      'messaging.batch.message_count': headers.length,
    },
  );
  return runIn(span, work);
}

/** The W3C context of the current span, to store beside work that a timer will take up later. */
export function currentTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * Work that a timer takes up (a saga's deadline): an internal span in the trace of the stored
 * context, so that what it publishes stays in the checkout's trace.
 */
export function traceScheduled<T>(
  name: string,
  stored: Record<string, string> | undefined,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, contextOf(stored, ROOT_CONTEXT));
  return runIn(span, work);
}

/** Runs `work` as the current span, and ends the span with its outcome. */
function runIn<T>(span: Span, work: () => Promise<T>): Promise<T> {
  return context.with(trace.setSpan(ROOT_CONTEXT, span), work).then(
    (result) => {
      endSpan(span);
      return result;
    },
    (error: unknown) => {
      endSpan(span, error);
      throw error;
    },
  );
}
