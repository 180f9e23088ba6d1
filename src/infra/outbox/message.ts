import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

export type MessageKind = 'event' | 'command';

declare const payloadOf: unique symbol;

/**
 * A message type's name as its contract gives it (`PaymentAuthorized.type`), which carries the
 * type of its payload: a string no contract defines is not one, so `@OnEvent` refuses it at
 * compile time, and checks the handler's payload parameter against it.
 */
export type MessageType<Payload extends object = object> = string & { readonly [payloadOf]: Payload };

/** The payload of a message type, or the union of the payloads of several. */
export type PayloadOfType<T> = T extends MessageType<infer P> ? P : never;

/**
 * A message type of the published language: its name (`module.fact-or-order.vN`), whether it is
 * an event (a fact, owned by its emitter) or a command (an order, owned by its receiver), and the
 * class that describes and validates its payload.
 */
export interface MessageContract<Payload extends object = object> {
  readonly type: MessageType<Payload>;
  readonly kind: MessageKind;
  readonly payload: new () => Payload;
}

export type PayloadOf<C> = C extends MessageContract<infer P> ? P : never;

const TYPE_NAME = /^[a-z]+\.[a-z0-9-]+\.v[0-9]+$/;

/** Every contract defined so far, by type: what a handler that names only a type (`@OnEvent`) is resolved by. */
const contracts = new Map<string, MessageContract>();

function define<P extends object>(kind: MessageKind, type: string, payload: new () => P): MessageContract<P> {
  if (!TYPE_NAME.test(type)) throw new Error(`Message type "${type}" must look like module.name.v1`);
  const known = contracts.get(type);
  if (known && (known.kind !== kind || known.payload !== payload)) {
    throw new Error(`Message type "${type}" is defined twice, with different payloads or kinds`);
  }
  if (known) return known as MessageContract<P>;
  const contract = Object.freeze({ type: type as MessageType<P>, kind, payload });
  contracts.set(type, contract);
  return contract;
}

/** The contract defined for this type (by defineEvent or defineCommand), if any. */
export const contractOfType = (type: string): MessageContract | undefined => contracts.get(type);

/** A fact that happened, named in the past tense: `billing.payment-authorized.v1`. */
export const defineEvent = <P extends object>(type: string, payload: new () => P) => define('event', type, payload);

/** An order to one receiver, named in the imperative: `content.grant-access.v1`. */
export const defineCommand = <P extends object>(type: string, payload: new () => P) => define('command', type, payload);

/** A message as the outbox stores it and as every consumer receives it. */
export interface OutboxMessage {
  /** Stable forever: the same on every delivery, retry and redrive. */
  id: string;
  kind: MessageKind;
  type: string;
  aggregateId: string;
  payload: unknown;
  correlationId: string;
  causationId: string | null;
  headers: Record<string, string>;
  createdAt: string;
}

/** What a handler learns about the message besides its payload. */
export interface Delivery extends Omit<OutboxMessage, 'payload'> {
  consumer: string;
  /** 1 on the first delivery to this consumer. */
  attempt: number;
}

/** The payload does not satisfy its contract: retrying cannot help. */
export class InvalidPayloadError extends Error {
  constructor(
    readonly type: string,
    readonly problems: string[],
  ) {
    super(`Payload of ${type} is invalid: ${problems.join('; ')}`);
    this.name = 'InvalidPayloadError';
  }
}

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    return [
      ...Object.values(error.constraints ?? {}).map((text) => `${path}: ${text}`),
      ...describe(error.children ?? [], path),
    ];
  });
}

/** The payload as an instance of its contract's class, or an InvalidPayloadError. */
export function parsePayload<P extends object>(contract: MessageContract<P>, payload: unknown): P {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw new InvalidPayloadError(contract.type, ['payload must be an object']);
  }
  const instance = plainToInstance(contract.payload, payload);
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: true });
  if (errors.length > 0) throw new InvalidPayloadError(contract.type, describe(errors));
  return instance;
}
