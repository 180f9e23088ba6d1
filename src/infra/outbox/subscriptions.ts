import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { Delivery, MessageContract } from './message';

export interface SubscriptionOptions {
  /** The consumer's name, `<module>.<what it does>`: the module's queue carries its deliveries. */
  consumer: string;
}

const SubscriptionMetadata = DiscoveryService.createDecorator<SubscriptionOptions & { contract: MessageContract }>();

/**
 * Declares a method as the handler of one message type, under a consumer name. The method
 * receives the validated payload and the delivery; it runs in a transaction that also records
 * the delivery in the inbox, so its writes and the messages it publishes commit with it, once.
 *
 * ```ts
 * @OnMessage(PaymentAuthorized, { consumer: 'content.grant-access' })
 * async grantAccess(payload: PaymentAuthorizedPayload, delivery: Delivery) { ... }
 * ```
 */
export function OnMessage(contract: MessageContract, options: SubscriptionOptions): MethodDecorator {
  return SubscriptionMetadata({ contract, ...options });
}

export type MessageHandler = (payload: object, delivery: Delivery) => Promise<unknown>;

export interface Subscription {
  consumer: string;
  /** The consuming module, which names its queue. */
  queue: string;
  contract: MessageContract;
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

  private add({ consumer, contract }: SubscriptionOptions & { contract: MessageContract }, handle: MessageHandler) {
    const queue = CONSUMER_NAME.exec(consumer)?.[1];
    if (!queue) throw new Error(`Consumer name "${consumer}" must look like module.what-it-does`);
    if (this.byConsumer.has(consumer)) throw new Error(`Consumer "${consumer}" is declared twice`);
    const subscription = { consumer, queue, contract, handle };
    this.byConsumer.set(consumer, subscription);
    this.byType.set(contract.type, [...(this.byType.get(contract.type) ?? []), subscription]);
  }

  of(type: string): readonly Subscription[] {
    return this.byType.get(type) ?? [];
  }

  consumer(name: string): Subscription | undefined {
    return this.byConsumer.get(name);
  }

  types(): string[] {
    return [...this.byType.keys()];
  }

  consumers(): string[] {
    return [...this.byConsumer.keys()].sort();
  }

  queues(): string[] {
    return [...new Set([...this.byConsumer.values()].map((s) => s.queue))].sort();
  }
}
