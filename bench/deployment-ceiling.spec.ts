import { coresFor, deploymentCeiling, describeCeilings } from './deployment-ceiling';

/** Figures of the order the checkout benchmark measures: 20 ms of app, 8 of Postgres, 5 of Redis. */
const costs = { appMs: 20, postgresMs: 8, redisMs: 5 };

describe("a deployment's ceiling, from the parts", () => {
  it('when one core of each, then the app (the dearest part) limits it, at 1000 / its ms', () => {
    const ceiling = deploymentCeiling(costs, { apps: 1, postgresCores: 1, redisMasters: 1 });
    expect(ceiling.byPart).toEqual({ app: 50, postgres: 125, redis: 200 });
    expect(ceiling).toMatchObject({ rate: 50, limitedBy: 'app' });
  });

  it('when app processes are added, then Postgres fills first, then Redis with one master', () => {
    expect(deploymentCeiling(costs, { apps: 8, postgresCores: 2, redisMasters: 1 })).toMatchObject({
      rate: 200,
      limitedBy: 'redis',
    });
    expect(deploymentCeiling(costs, { apps: 8, postgresCores: 1, redisMasters: 1 })).toMatchObject({
      rate: 125,
      limitedBy: 'postgres',
    });
  });

  it("when Redis has three masters, then it allows three times one master's rate if the queues spread evenly", () => {
    const even = deploymentCeiling(costs, { apps: 100, postgresCores: 100, redisMasters: 3 });
    expect(even.byPart.redis).toBeCloseTo(600);
    expect(even.limitedBy).toBe('redis');
  });

  it('when one master holds half of the work, then the cluster does twice what that master can, not three times', () => {
    const skewed = deploymentCeiling(costs, { apps: 100, postgresCores: 100, redisMasters: 3, redisBusiestShare: 0.5 });
    expect(skewed.byPart.redis).toBeCloseTo(400);
  });

  it('when a part costs nothing a checkout (a peer without Redis), then it never limits', () => {
    const ceiling = deploymentCeiling({ ...costs, redisMs: 0 }, { apps: 100, postgresCores: 1, redisMasters: 1 });
    expect(ceiling.byPart.redis).toBe(Infinity);
    expect(ceiling.limitedBy).toBe('postgres');
  });

  it('when a shape or a share is impossible, then it is refused', () => {
    expect(() => deploymentCeiling(costs, { apps: 0, postgresCores: 1, redisMasters: 1 })).toThrow(/apps/);
    expect(() =>
      deploymentCeiling(costs, { apps: 1, postgresCores: 1, redisMasters: 3, redisBusiestShare: 0.2 }),
    ).toThrow(/redisBusiestShare/);
  });

  it('when a rate is wanted, then each part gets the whole cores it needs for it', () => {
    expect(coresFor(costs, 1_000)).toEqual({ apps: 20, postgresCores: 8, redisMasters: 5 });
    expect(coresFor(costs, 30)).toEqual({ apps: 1, postgresCores: 1, redisMasters: 1 });
  });

  it('when printed, then the formula carries the measured costs and each row names the part that fills first', () => {
    const lines = describeCeilings('orchestration', costs, [{ apps: 8, postgresCores: 2, redisMasters: 1 }]);
    expect(lines[0]).toContain('rate = min(N × 1000 / 20.00, P × 1000 / 8.00, R × 1000 / 5.00)');
    expect(lines[2]).toMatch(/8 \/ 2 \/ 1\s+400\s+250\s+200\s+200\/s\s+redis/);
  });
});
