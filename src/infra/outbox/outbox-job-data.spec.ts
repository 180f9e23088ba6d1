import { outboxJobOf } from './outbox.queues';

const delivery = { id: '3f1c2a9e-4b7d-4c1e-9a2b-5d6e7f8a9b0c', consumer: 'ledger.apply-entry' };

/**
 * What a one-delivery job's data is read for: its ids, and how the delivery runs. Crashes are
 * found in Postgres (DeliveryRuns), so what a job says of them (what Redis holds may be anything)
 * is not read at all.
 */
describe('What a one-delivery job says besides its ids', () => {
  it.each([
    ['crashes it was charged with', { charged: [1, 2, 3] }],
    ['a run alone it began', { ranAlone: 1 }],
  ])('when it names %s, then that is not read, and the delivery still is', (_, more) => {
    expect(outboxJobOf({ ...delivery, ...more })).toEqual(delivery);
  });

  it('when it says it is a suspect, then it is read as one: that decides only how it runs', () => {
    expect(outboxJobOf({ ...delivery, alone: true, stallsCounted: 2 })).toEqual({
      ...delivery,
      alone: true,
      stallsCounted: 2,
    });
  });

  it.each([
    ['a count', 3, 3],
    ['not a count', -1, undefined],
    ['not a number', '3', undefined],
  ])('when its looks for a missing message are %s, then they are read as such', (_, looks, read) => {
    expect(outboxJobOf({ ...delivery, looks })?.looks).toBe(read);
  });
});
