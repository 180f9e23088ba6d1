import { setTimeout as sleep } from 'node:timers/promises';
import { callOutside } from '../failure-source';

/** Where a participant service is, and how a call to it is bounded. */
export interface ParticipantClientSettings {
  /** Its base URL, without a trailing slash; its API is under /v1. */
  url: string;
  /** How long one request may take before the call gives up on it. */
  timeoutMs: number;
  /** Requests per call on a 502, a 503 or a refused connection, the first included. */
  attempts: number;
  /** The pause before the second request of a call, doubled before each next one. */
  backoffMs: number;
}

/** The service answered with a status that is not a decision; its body is kept for the record. */
export class ParticipantHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`answered ${status}: ${body.slice(0, 300)}`);
    this.name = 'ParticipantHttpError';
  }
}

/** Statuses by which a service says the request did not reach its work (or reached it under the same key). */
const RETRIED_STATUSES = new Set([502, 503]);

type Sent = { kind: 'answered'; text: string } | { kind: 'retry'; error: Error };

/**
 * A participant service (the card gateway, the fiscal authority), over HTTP with Node's fetch.
 * Each POST sends its idempotency key in the Idempotency-Key header and waits at most `timeoutMs`
 * for each request. A 502, a 503 or a refused connection is sent again under the same key, a few
 * times with a doubling pause: the service says it did not take the request in, or answers the
 * same key with the same response. A timeout is not: the effect may have happened and only its
 * answer be late, so it surfaces, as every other failure, as the service's (callOutside, ADR
 * 0093), and the caller's next attempt asks again under the same key. A 4xx is never sent again.
 * A GET is sent again on the same statuses; unanswered, it fails as a call does.
 */
export class ParticipantClient {
  constructor(
    /** The name its failures carry (callOutside). */
    private readonly service: string,
    private readonly settings: ParticipantClientSettings,
  ) {}

  /** POSTs `body` under `key`, and reads the answer with `read`: a body it cannot read is the service's failure. */
  async post<T>(path: string, key: string, body: object, read: (text: string) => T): Promise<T> {
    const text = await this.exchange(path, key, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    return callOutside(this.service, async () => read(text));
  }

  /** GETs `path`, and reads the answer with `read`: never "none" for no answer. */
  async get<T>(path: string, read: (text: string) => T): Promise<T> {
    const text = await this.exchange(path, '(a look-up)', { method: 'GET' });
    return callOutside(this.service, async () => read(text));
  }

  /** One request, sent again on a 502, a 503 or a refused connection: the body of its answer. */
  private exchange(path: string, what: string, init: RequestInit): Promise<string> {
    return callOutside(this.service, async () => {
      for (let attempt = 1; ; attempt++) {
        const sent = await this.send(path, what, init);
        if (sent.kind === 'answered') return sent.text;
        if (attempt >= this.settings.attempts) throw sent.error;
        await sleep(this.settings.backoffMs * 2 ** (attempt - 1));
      }
    });
  }

  private async send(path: string, what: string, init: RequestInit): Promise<Sent> {
    const { url, timeoutMs } = this.settings;
    try {
      const answer = await fetch(`${url}/v1/${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      const text = await answer.text();
      if (RETRIED_STATUSES.has(answer.status))
        return { kind: 'retry', error: new ParticipantHttpError(answer.status, text) };
      if (!answer.ok) throw new ParticipantHttpError(answer.status, text);
      return { kind: 'answered', text };
    } catch (error) {
      if (connectionRefused(error)) {
        return { kind: 'retry', error: new Error(`connection refused at ${url}`, { cause: error }) };
      }
      if ((error as Error).name === 'TimeoutError') {
        // A POST's effect may have happened; a GET's answer is unknown, which is not "none".
        const unknown = init.method === 'GET' ? 'what it holds is not known' : 'it may still have taken effect';
        throw new Error(`no answer within ${timeoutMs} ms to ${init.method} ${path} ${what}: ${unknown}`, {
          cause: error,
        });
      }
      throw error;
    }
  }
}

/** fetch's "fetch failed", caused by a refused connection (or by each address's, when it tried several). */
function connectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string; errors?: Array<{ code?: string }> } } | undefined)?.cause;
  if (!cause) return false;
  return cause.code === 'ECONNREFUSED' || (cause.errors ?? []).some((each) => each.code === 'ECONNREFUSED');
}
