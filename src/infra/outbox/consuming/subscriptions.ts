import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { EVENT_LISTENER_METADATA, EventEmitter2, type OnEventMetadata } from '@nestjs/event-emitter';
import type { AppRole } from '../../../config/app.config';
import { contractOfType, type Delivery, type MessageContract } from '../message';

/**
 * Who makes a delivery take effect once: `transport` (the inbox skips a second delivery of the
 * same message to the same consumer), or `handler` (every delivery, duplicates included, reaches
 * the handler, which is idempotent on its own; the inbox still records the first as the receipt).
 */
export type Dedup = 'transport' | 'handler';

export interface ConsumerOptions {
  /** Only messages whose headers have these values (others are never routed to this consumer). */
  where?: Record<string, string>;
  /**
   * The role of the processes that run this consumer (default `worker`). A consumer with another
   * role gets a queue of its own, `<module>-<role>`, so that it can run in separate processes.
   */
  role?: AppRole;
  /**
   * The handler reaches outside the database (it sends an email): its deliveries never share a
   * transaction with others, which would run it again when a neighbour fails.
   */
  exclusive?: boolean;
  /** Default `transport`. */
  dedup?: Dedup;
  /**
   * Its failures are a participant's outage, measured in hours (the fiscal authority's): it is
   * retried OUTBOX_OUTAGE_ATTEMPTS times, the waits doubling up to OUTBOX_OUTAGE_MAX_WAIT_MS,
   * before the dead letter that asks a person (outage-patience.ts).
   */
  waitsOutOutages?: boolean;
}

/** What a handler's decorators declare: who handles it (`@Consumer`), and what (`@OnEvent`). */
export type Declared = ConsumerOptions & { consumer: string; contracts: MessageContract[] };

const ConsumerMetadata = DiscoveryService.createDecorator<ConsumerOptions & { consumer: string }>();

/**
 * Names the consumer that handles the message types `@OnEvent` beside it names: its name,
 * `<module>.<what it does>` (the module's queue carries its deliveries), and how it is delivered.
 * The method receives the validated payload and the delivery (whose `type` says which message it
 * is); it runs in a transaction that also records the delivery in the inbox, so its writes and
 * the messages it publishes commit with it, once. It is delivered through the outbox, a queue and
 * the inbox, never by an in-memory emitter: the app refuses to start with EventEmitterModule loaded.
 *
 * ```ts
 * @OnEvent(PaymentAuthorized.type)
 * @Consumer('content.grant-access', { where: CHOREOGRAPHED })
 * async grantAccess(payload: PaymentAuthorizedPayload, delivery: Delivery) { ... }
 * ```
 */
export function Consumer(name: string, options: ConsumerOptions = {}): MethodDecorator {
  return ConsumerMetadata({ consumer: name, ...options });
}

export type MessageHandler = (payload: object, delivery: Delivery) => Promise<unknown>;

export interface Subscription {
  consumer: string;
  /** Its queue: the consuming module's, or `<module>-<role>` for a consumer with another role than worker. */
  queue: string;
  role: AppRole;
  exclusive: boolean;
  dedup: Dedup;
  waitsOutOutages: boolean;
  contracts: MessageContract[];
  where: Record<string, string>;
  handle: MessageHandler;
}

const CONSUMER_NAME = /^([a-z]+)\.[a-z0-9-]+$/;

/** Every subscription of the app, discovered at boot: who consumes what, on which queue. */
@Injectable()
export class Subscriptions implements OnModuleInit {
  private readonly byConsumer = new Map<string, Subscription>();
  private readonly byType = new Map<string, Subscription[]>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onModuleInit(): void {
    const providers = this.discovery.getProviders();
    // Its emitter would call the @OnEvent methods in memory: outside the inbox, and swallowing their errors.
    if (providers.some((wrapper) => wrapper.token === EventEmitter2)) {
      throw new Error(
        'EventEmitterModule is loaded: @OnEvent handlers are delivered through the outbox, never by an in-memory emitter',
      );
    }
    for (const wrapper of providers) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || !wrapper.metatype || typeof instance !== 'object') continue;
      for (const method of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const declared = this.declared(wrapper.metatype.name, method, instance[method] as MessageHandler);
        if (declared) this.add(declared, (instance[method] as MessageHandler).bind(instance));
      }
    }
  }

  /** What a method's `@OnEvent` and `@Consumer` declare, if it has them. */
  private declared(provider: string, method: string, handler: MessageHandler): Declared | undefined {
    const named = `${provider}.${method}`;
    const consumer = Reflect.getMetadata(ConsumerMetadata.KEY, handler) as ConsumerOptions & { consumer: string };
    const onEvents = (Reflect.getMetadata(EVENT_LISTENER_METADATA, handler) ?? []) as OnEventMetadata[];
    if (!consumer && onEvents.length === 0) return undefined;
    if (!consumer) throw new Error(`${named} has @OnEvent but no @Consumer: name the consumer that handles it`);
    if (onEvents.length === 0) throw new Error(`${named} has @Consumer but no @OnEvent: say which message it handles`);
    const contracts = onEvents
      .flatMap(({ event }) => [event].flat())
      .map((type) => {
        const contract = typeof type === 'string' ? contractOfType(type) : undefined;
        if (!contract) {
          throw new Error(
            `${named}: @OnEvent(${String(type)}) names no message type defined by defineEvent or defineCommand`,
          );
        }
        return contract;
      });
    return { ...consumer, contracts };
  }

  /**
   * Adds what a handler's decorators declare; discovery calls it at boot, and a test of the
   * transport that runs without Nest calls it with handlers of its own.
   */
  add(
    {
      consumer,
      contracts,
      where = {},
      role = 'worker',
      exclusive = false,
      dedup = 'transport',
      waitsOutOutages = false,
    }: Declared,
    handle: MessageHandler,
  ) {
    const module = CONSUMER_NAME.exec(consumer)?.[1];
    if (!module) throw new Error(`Consumer name "${consumer}" must look like module.what-it-does`);
    if (this.byConsumer.has(consumer)) throw new Error(`Consumer "${consumer}" is declared twice`);
    const queue = role === 'worker' ? module : `${module}-${role}`;
    const subscription = { consumer, queue, role, exclusive, dedup, waitsOutOutages, contracts, where, handle };
    this.byConsumer.set(consumer, subscription);
    for (const { type } of contracts) this.byType.set(type, [...(this.byType.get(type) ?? []), subscription]);
  }

  /** The subscriptions that a message of this type, with these headers, is routed to. */
  of(type: string, headers: Record<string, string> = {}): Subscription[] {
    return (this.byType.get(type) ?? []).filter((s) =>
      Object.entries(s.where).every(([name, value]) => headers[name] === value),
    );
  }

  consumer(name: string): Subscription | undefined {
    return this.byConsumer.get(name);
  }

  /** The contract under which this consumer takes this type, if it does. */
  contractOf(consumer: string, type: string): MessageContract | undefined {
    return this.byConsumer.get(consumer)?.contracts.find((contract) => contract.type === type);
  }

  consumers(): string[] {
    return [...this.byConsumer.keys()].sort();
  }

  /** Every queue, or only those whose consumers run in one of these roles. */
  queues(roles?: (role: AppRole) => boolean): string[] {
    const subscriptions = [...this.byConsumer.values()].filter((s) => !roles || roles(s.role));
    return [...new Set(subscriptions.map((s) => s.queue))].sort();
  }
}
