import { BadGatewayException, Injectable, type OnModuleDestroy, ServiceUnavailableException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ArmedRule, type FaultRule, takeRule } from './fault-rules';

/** What the lab has in force: rules by fault, and an outage's end. */
export interface LabState {
  rules: ArmedRule[];
  down: { mode: 'refuse' | '503'; until: string } | null;
  /** Requests taken in and not yet answered: a held or late one ends before its effects are counted. */
  inFlight: number;
}

/**
 * A participant's faults, set over its admin API and carried out around each operation (the
 * interceptor) or at its decision (a refusal, which the service takes with `takes`).
 */
@Injectable()
export class Lab implements OnModuleDestroy {
  private rules: ArmedRule[] = [];
  private inFlight = 0;
  private down: { mode: 'refuse' | '503'; until: number; timers: NodeJS.Timeout[] } | null = null;
  /** While connections are refused: how the server listens again where it did. */
  private listenAgain: (() => void) | undefined;

  constructor(private readonly adapter: HttpAdapterHost) {}

  set(rule: FaultRule): LabState {
    if (rule.fault === 'down') {
      this.goDown(rule.mode ?? 'refuse', rule.seconds!);
    } else {
      this.rules.push({
        fault: rule.fault,
        operation: rule.operation,
        delayMs: rule.delayMs,
        when: rule.when,
        left: rule.times ?? 1,
      });
    }
    return this.state();
  }

  /** Drops every rule, and ends an outage (one that refuses connections is ended by its own clock). */
  clear(): LabState {
    this.rules = [];
    if (this.down) this.comeBack();
    return this.state();
  }

  state(): LabState {
    return {
      rules: this.rules.map((rule) => ({ ...rule })),
      down: this.down && { mode: this.down.mode, until: new Date(this.down.until).toISOString() },
      inFlight: this.inFlight,
    };
  }

  /** Whether a rule of `fault` (the service's refusal) applies to this operation: one use of it taken if so. */
  takes(fault: string, operation: string): boolean {
    return takeRule(this.rules, fault, operation) !== undefined;
  }

  /** Runs one operation (or a listing) through the faults in force: held, refused, answered 502, or late. */
  async around<T>(operation: string, perform: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    try {
      return await this.faulted(operation, perform);
    } finally {
      this.inFlight -= 1;
    }
  }

  private async faulted<T>(operation: string, perform: () => Promise<T>): Promise<T> {
    // The listing stays readable through a 503 outage, where the tests count; it has faults of its own.
    if (this.down?.mode === '503' && operation !== 'listing') {
      throw new ServiceUnavailableException({ statusCode: 503, error: 'Service Unavailable', reason: 'down' });
    }
    const hold = takeRule(this.rules, 'hold', operation);
    if (hold) await sleep(hold.delayMs ?? 0);
    if (takeRule(this.rules, 'bad-gateway', operation, 'before-effect')) throw badGateway('before-effect');
    const result = await perform();
    if (takeRule(this.rules, 'bad-gateway', operation, 'after-effect')) throw badGateway('after-effect');
    const late = takeRule(this.rules, 'late', operation);
    if (late) await sleep(late.delayMs ?? 0);
    return result;
  }

  /** Before the server closes: an outage's end must not listen again on the way out. */
  onModuleDestroy(): void {
    this.down?.timers.forEach(clearTimeout);
    this.down = null;
  }

  private goDown(mode: 'refuse' | '503', seconds: number): void {
    if (this.down) this.comeBack();
    const until = Date.now() + seconds * 1_000;
    const timers = [setTimeout(() => this.comeBack(), seconds * 1_000)];
    if (mode === 'refuse') timers.push(this.refuseConnections());
    this.down = { mode, until, timers };
  }

  /**
   * Stops listening, so that new connections are refused, and closes each connection as it goes
   * idle (the one that asked for the outage once answered, a client's kept-alive ones).
   */
  private refuseConnections(): NodeJS.Timeout {
    const server = this.server();
    const { address, port } = server.address() as AddressInfo;
    this.listenAgain = () => server.listen(port, address);
    server.close();
    server.closeIdleConnections();
    return setInterval(() => server.closeIdleConnections(), 10);
  }

  /**
   * Ahead of every route: while connections are refused, a request on one opened before the
   * outage is cut off unprocessed, as if that connection had broken.
   */
  readonly gate = (request: IncomingMessage, _response: unknown, next: () => void): void => {
    if (this.down?.mode === 'refuse') request.socket.destroy();
    else next();
  };

  private comeBack(): void {
    this.down?.timers.forEach((timer) => clearTimeout(timer));
    this.down = null;
    this.listenAgain?.();
    this.listenAgain = undefined;
  }

  private server(): Server {
    return this.adapter.httpAdapter.getHttpServer() as Server;
  }
}

const badGateway = (when: 'before-effect' | 'after-effect') =>
  new BadGatewayException({ statusCode: 502, error: 'Bad Gateway', reason: `injected-${when}` });
