import { outagePatienceOf } from './outage-patience';

describe("A consumer's patience with its participant's outages", () => {
  const config = { backoffMs: 500, outage: { attempts: 24, maxWaitMs: 3_600_000 } };

  it('when a consumer does not wait out outages, then it has no patience of its own: its jobs retry as they always did', () => {
    expect(outagePatienceOf(config, { waitsOutOutages: false })).toBeUndefined();
  });

  it('when it does, then its waits double from the backoff up to the longest wait, for its own number of attempts', () => {
    const patience = outagePatienceOf(config, { waitsOutOutages: true })!;

    const waits = Array.from({ length: patience.attempts - 1 }, (_, i) => patience.waitAfter(i + 1));

    expect(patience.attempts).toBe(24);
    expect(waits.slice(0, 4)).toEqual([500, 1_000, 2_000, 4_000]);
    expect(waits.slice(-3)).toEqual([3_600_000, 3_600_000, 3_600_000]);
    // Hours, as an authority's outage is, and not days: about 11 between the first attempt and the dead letter.
    const hours = waits.reduce((sum, wait) => sum + wait, 0) / 3_600_000;
    expect(hours).toBeGreaterThan(10);
    expect(hours).toBeLessThan(12);
  });
});
