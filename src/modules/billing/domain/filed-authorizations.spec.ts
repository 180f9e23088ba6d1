import { decideVoidOfFiled } from './filed-authorizations';

describe('A void with no payment row of ours, from what the gateway filed under the checkout', () => {
  it('when nothing was filed, then nothing is voided and the tombstone names no authorization', () => {
    expect(decideVoidOfFiled([])).toEqual({ kind: 'void', held: [], found: null });
  });

  it('when an authorization is held, then it is voided and named on the tombstone', () => {
    expect(decideVoidOfFiled([{ authorizationId: 'auth_1', done: [] }])).toEqual({
      kind: 'void',
      held: ['auth_1'],
      found: 'auth_1',
    });
  });

  it('when it was voided by an earlier attempt, then it is not voided again, and still named', () => {
    expect(decideVoidOfFiled([{ authorizationId: 'auth_1', done: ['void'] }])).toEqual({
      kind: 'void',
      held: [],
      found: 'auth_1',
    });
  });

  it("when one of them was captured, then nothing is voided: it is a person's", () => {
    expect(
      decideVoidOfFiled([
        { authorizationId: 'auth_1', done: [] },
        { authorizationId: 'auth_2', done: ['capture'] },
      ]),
    ).toEqual({ kind: 'captured', authorizationId: 'auth_2' });
  });
});
