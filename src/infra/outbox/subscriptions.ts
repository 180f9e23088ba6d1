import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { AppRole } from '../../config/app.config';
import type { Delivery, MessageContract } from './message';

export interface SubscriptionOptions {
  /** The consumer's name, `<module>.<what it does>`: the module's queue carries its deliveries. */
  consumer: string;
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
}

const SubscriptionMetadata = DiscoveryService.createDecorator<SubscriptionOptions & { contracts: MessageContract[] }>();

/**
 * Declares a method as the handler of a message type (or of several, for one reaction to any of
 * them), under a consumer name. The method receives the validated payload and the delivery
 * (whose `type` says which it is); it runs in a transaction that also records the delivery in
 * the inbox, so its writes and the messages it publishes commit with it, once.
 *
 * ```ts
 * @OnMessage(PaymentAuthorized, { consumer: 'content.grant-access' })
 * async grantAccess(payload: PaymentAuthorizedPayload, delivery: Delivery) { ... }
 * ```
 */
export function OnMessage(
  contract: MessageContract | MessageContract[],
  options: SubscriptionOptions,
): MethodDecorator {
  return SubscriptionMetadata({ contracts: [contract].flat(), ...options });
}

export type MessageHandler = (payload: object, delivery: Delivery) => Promise<unknown>;

export interface Subscription {
  consumer: string;
  /** Its queue: the consuming module's, or `<module>-<role>` for a consumer with another role than worker. */
  queue: string;
  role: AppRole;
  exclusive: boolean;
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
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || !wrapper.metatype || typeof instance !== 'object') continue;
      for (const method of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const options = this.discovery.getMetadataByDecorator(SubscriptionMetadata, wrapper, method);
        if (options) this.add(options, (instance[method] as MessageHandler).bind(instance));
      }
    }
  }

  private add(
    {
      consumer,
      contracts,
      where = {},
      role = 'worker',
      exclusive = false,
    }: SubscriptionOptions & { contracts: MessageContract[] },
    handle: MessageHandler,
  ) {
    const module = CONSUMER_NAME.exec(consumer)?.[1];
    if (!module) throw new Error(`Consumer name "${consumer}" must look like module.what-it-does`);
    if (this.byConsumer.has(consumer)) throw new Error(`Consumer "${consumer}" is declared twice`);
    const queue = role === 'worker' ? module : `${module}-${role}`;
    const subscription = { consumer, queue, role, exclusive, contracts, where, handle };
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
