import { type ArmedRule, takeRule } from './fault-rules';

describe("The lab's rules", () => {
  it('when a rule is taken as often as it applies, then it is gone, and a rule for any operation serves each', () => {
    const rules: ArmedRule[] = [
      { fault: 'decline', operation: 'capture', left: 2 },
      { fault: 'decline', left: 1 },
    ];

    const taken = (['authorize', 'capture', 'capture', 'capture'] as const).map((operation) => {
      const rule = takeRule(rules, 'decline', operation);
      return rule ? (rule.operation ?? 'any') : 'none';
    });

    expect(taken).toEqual(['any', 'capture', 'capture', 'none']);
    expect(rules).toEqual([]);
  });

  it('when a 502 is asked for after the effect, then a rule for before it is not taken', () => {
    const rules: ArmedRule[] = [{ fault: 'bad-gateway', when: 'before-effect', left: 1 }];

    expect(takeRule(rules, 'bad-gateway', 'authorize', 'after-effect')).toBeUndefined();
    expect(takeRule(rules, 'bad-gateway', 'authorize', 'before-effect')).toMatchObject({ when: 'before-effect' });
  });
});
