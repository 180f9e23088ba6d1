import type { OperationRecord } from '../../../participants/card-gateway/domain/operations';
import { moneyOf } from '../../support/money-at-the-gateway';

/** One operation at the gateway under checkout `c1`, approved unless said. */
const op = (operation: OperationRecord['operation'], authorizationId: string, approved = true): OperationRecord => ({
  operation,
  idempotencyKey: `${operation}-${authorizationId}-${Math.random()}`,
  response: {},
  approved,
  reference: 'c1',
  authorizationId: approved ? authorizationId : null,
  paymentMethod: 'pm_card_ok',
  createdAt: new Date().toISOString(),
});

describe('The money of a checkout, counted at the card gateway service', () => {
  it('when one authorization was captured, then nothing is held and one capture is charged', () => {
    expect(moneyOf([op('authorize', 'a1'), op('capture', 'a1')])).toEqual({ held: 0, captures: 1, charged: 1 });
  });

  it('when a second authorization was left, and a capture approved twice, then both show', () => {
    const history = [op('authorize', 'a1'), op('capture', 'a1'), op('capture', 'a1'), op('authorize', 'a2')];

    expect(moneyOf(history)).toEqual({ held: 1, captures: 2, charged: 2 });
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

    expect(moneyOf(history)).toEqual({ held: 0, captures: 1, charged: 0 });
  });
});
