import { OnEvent as OnEventOfTheLibrary } from '@nestjs/event-emitter';
import type { Delivery, MessageType, PayloadOfType } from '../message';

/** A durable handler of messages whose payload is P: it runs in the delivery's transaction. */
export type MessageHandlerOf<P> = (payload: P, delivery: Delivery) => Promise<unknown>;

/**
 * `@OnEvent` of `@nestjs/event-emitter`, the same decorator and metadata, typed by the contracts:
 * it takes a message type as a contract gives it (`PaymentAuthorized.type`, or a list of them, for
 * one reaction to any), so a string no contract defines does not compile, and a method whose
 * payload parameter does not accept the payload of every type it names does not either. An event
 * or a command alike: the contract's kind says which. `@Consumer` beside it says who handles it.
 *
 * ```ts
 * @OnEvent(PaymentAuthorized.type)
 * @Consumer('content.grant-access', { where: CHOREOGRAPHED })
 * async grantAccess(payload: PaymentAuthorizedPayload, delivery: Delivery) { ... }
 * ```
 */
export function OnEvent<T extends MessageType>(type: T | readonly T[]) {
  const decorate = OnEventOfTheLibrary(typeof type === 'string' ? type : [...type]);
  // A generic over the method, so that its type is checked against the handler's (strictly: a
  // payload parameter narrower than the payload fails), not inferred from it.
  return <Method extends MessageHandlerOf<PayloadOfType<T>>>(
    target: object,
    method: string | symbol,
    descriptor: TypedPropertyDescriptor<Method>,
  ): void => {
    decorate(target, method, descriptor);
  };
}
