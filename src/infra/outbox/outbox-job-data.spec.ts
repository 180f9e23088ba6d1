import { MAX_CHARGED, outboxJobOf } from './outbox.queues';

const delivery = { id: '3f1c2a9e-4b7d-4c1e-9a2b-5d6e7f8a9b0c', consumer: 'ledger.apply-entry' };

/**
 * What a job's data may say of its crashes: the stalls judged to be crashes are recorded in
 * Postgres at each take, one row each, so a list that is not ours (what Redis holds may be
 * anything) is not read.
 */
describe('The crashes a one-delivery job says it was charged with', () => {
  it('when they are stall numbers, as many as the highest crash limit at most, then they are read', () => {
    const charged = Array.from({ length: MAX_CHARGED }, (_, index) => index + 1);
    expect(outboxJobOf({ ...delivery, charged: [1, 2] })?.charged).toEqual([1, 2]);
    expect(outboxJobOf({ ...delivery, charged })?.charged).toEqual(charged);
  });

  it.each([
    ['more than the highest crash limit', Array.from({ length: MAX_CHARGED + 1 }, (_, index) => index + 1)],
    ['a number that is not a stall', [1, 0.5]],
    ['a negative one', [-1]],
    ['not a number', ['1']],
    ['not a list', 2],
  ])('when they are %s, then none is read, and the delivery still is', (_, charged) => {
    expect(outboxJobOf({ ...delivery, charged })).toEqual(delivery);
  });
});
