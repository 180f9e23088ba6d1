import { type FiledOperation, moneyIn } from './filed-money';

/** One operation the gateway filed under the checkout, approved unless said. */
const op = (operation: string, authorizationId: string, approved = true): FiledOperation => ({
  operation,
  approved,
  authorizationId: approved ? authorizationId : null,
});

describe("The money of a checkout, counted in the gateway's listing of its reference", () => {
  it('when nothing was filed, then there is no money', () => {
    expect(moneyIn([])).toEqual({ held: 0, captures: 0, charged: 0, refunds: 0 });
  });

  it('when one authorization was captured, then nothing is held and one capture is charged', () => {
    expect(moneyIn([op('authorize', 'a1'), op('capture', 'a1')])).toEqual({
      held: 0,
      captures: 1,
      charged: 1,
      refunds: 0,
    });
  });

  it('when a second authorization was left, and a capture approved twice, then both show', () => {
    const history = [op('authorize', 'a1'), op('capture', 'a1'), op('capture', 'a1'), op('authorize', 'a2')];

    expect(moneyIn(history)).toEqual({ held: 1, captures: 2, charged: 2, refunds: 0 });
  });

  it('when the authorizations were voided, refunded or declined, then nothing is held or charged', () => {
    const history = [
      op('authorize', 'a1'),
      op('void', 'a1'),
      op('authorize', 'a2'),
      op('capture', 'a2'),
      op('refund', 'a2'),
      op('authorize', 'a3', false),
      op('capture', 'a4', false),
    ];

    expect(moneyIn(history)).toEqual({ held: 0, captures: 1, charged: 0, refunds: 1 });
  });

  it('when a refund was declined, then the capture is still charged and no refund counts', () => {
    const history = [op('authorize', 'a1'), op('capture', 'a1'), op('refund', 'a1', false)];

    expect(moneyIn(history)).toEqual({ held: 0, captures: 1, charged: 1, refunds: 0 });
  });
});
