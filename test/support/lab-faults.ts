import { randomUUID } from 'node:crypto';
import { eventually } from './eventually';
import type { RunningParticipant } from './participant-service';

/** One participant, as the lab's shared tests drive it. */
export interface LabSubject {
  service: RunningParticipant;
  /** The lab's name for the operation the faults are aimed at (`authorize`, `invoice`). */
  operation: string;
  /** The service's refusal fault (`decline`, `reject`), and the body it answers with. */
  refusal: string;
  refused: Record<string, unknown>;
  /** Performs the operation once, under `key`, for `reference`: the service's HTTP answer. */
  perform(key: string, reference: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Whether an answer's body is the operation's success. */
  succeeded(body: Record<string, unknown>): boolean;
  /** The effects filed under a reference, counted; and what they are with none, and with one operation. */
  effects(reference: string): Promise<object>;
  none: object;
  one: object;
}

/**
 * The faults every participant's lab takes (its refusal, late, 502 before and after the effect,
 * down by 503 or refused, cleared), as the tests of each service: `subject()` is called inside
 * each test, once the service has started.
 */
export function itTakesTheLabsFaults(subject: () => LabSubject): void {
  it("when the next operation is refused by the lab, then that key keeps the lab's refusal, and the next key succeeds", async () => {
    const { service, operation, refusal, refused, perform, succeeded, effects, one } = subject();
    const reference = randomUUID();
    await service.fault({ fault: refusal, operation, times: 1 });

    const first = await perform(`a-${reference}`, reference);
    const again = await perform(`a-${reference}`, reference);
    const next = await perform(`b-${reference}`, reference);

    expect([first.body, again.body]).toEqual([refused, refused]);
    expect(succeeded(next.body)).toBe(true);
    expect(await effects(reference)).toEqual(one);
  });

  it('when the answer is late, then the effect is filed before the answer leaves', async () => {
    const { service, operation, perform, succeeded, effects, one } = subject();
    const reference = randomUUID();
    await service.fault({ fault: 'late', operation, delayMs: 1_500 });

    const answer = perform(`a-${reference}`, reference);
    await eventually(async () => expect(await effects(reference)).toEqual(one));
    const settled = await Promise.race([answer.then(() => 'answered'), Promise.resolve('still waiting')]);

    expect(settled).toBe('still waiting');
    expect(succeeded((await answer).body)).toBe(true);
  });

  it.each(['before-effect', 'after-effect'] as const)(
    'when it answers 502 %s, then the effect is filed accordingly, and the same key then gets its answer',
    async (when) => {
      const { service, operation, perform, effects, none, one } = subject();
      const reference = randomUUID();
      await service.fault({ fault: 'bad-gateway', operation, when });

      const failed = await perform(`a-${reference}`, reference);
      const filed = await effects(reference);
      const again = await perform(`a-${reference}`, reference);

      expect({ status: failed.status, reason: failed.body.reason, filed }).toEqual({
        status: 502,
        reason: `injected-${when}`,
        filed: when === 'before-effect' ? none : one,
      });
      expect(again.status).toBe(200);
      expect(await effects(reference)).toEqual(one);
    },
  );

  it('when it is down answering 503, then every operation is a 503 until the time is up, and the listing still answers', async () => {
    const { service, perform, effects, none } = subject();
    const reference = randomUUID();
    await service.fault({ fault: 'down', seconds: 1, mode: '503' });

    const during = await perform(`a-${reference}`, reference);
    const listed = await effects(reference);

    expect({ status: during.status, reason: during.body.reason, listed }).toEqual({
      status: 503,
      reason: 'down',
      listed: none,
    });
    await eventually(async () => expect((await perform(`a-${reference}`, reference)).status).toBe(200), {
      timeoutMs: 5_000,
      intervalMs: 100,
    });
  });

  it('when it is down refusing connections, then a connection is refused until the time is up', async () => {
    const { service, perform, effects, one } = subject();
    const reference = randomUUID();
    await service.fault({ fault: 'down', seconds: 1, mode: 'refuse' });

    const refused = await perform(`a-${reference}`, reference).catch((error: Error) => error);

    expect((refused as Error & { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    await eventually(async () => expect((await perform(`a-${reference}`, reference)).status).toBe(200), {
      timeoutMs: 5_000,
      intervalMs: 100,
    });
    expect(await effects(reference)).toEqual(one);
  });

  it('when the faults are cleared, then the next requests are served as usual', async () => {
    const { service, refusal, perform, succeeded } = subject();
    const reference = randomUUID();
    await service.fault({ fault: refusal, times: 5 });
    await service.fault({ fault: 'bad-gateway', when: 'before-effect', times: 5 });

    await service.clearFaults();

    expect(succeeded((await perform(`a-${reference}`, reference)).body)).toBe(true);
  });
}
