import { type Route, routesOf, versionOf } from './consumer-catalog';

const RECORDED = 'ledger.entry-recorded.v1';
const CORRECTED = 'ledger.entry-corrected.v1';
const before: Route = { consumer: 'audit.file-entry', queue: 'audit', types: [RECORDED], where: {} };
const after: Route = { ...before, types: [RECORDED, CORRECTED] };

describe('The routes of every running version of a consumer', () => {
  it('when one version of a consumer takes a type and another does not, then the consumer takes it', () => {
    expect(routesOf([before, after], CORRECTED)).toEqual([after]);
  });

  it('when two versions of a consumer on one queue both take a type, then it is routed to that queue once', () => {
    expect(routesOf([before, after], RECORDED)).toEqual([before]);
  });

  it('when two versions of a consumer declare different queues, then it is routed to each queue', () => {
    const moved: Route = { ...after, queue: 'audit-mailer' };

    expect(routesOf([before, moved], RECORDED).map((route) => route.queue)).toEqual(['audit', 'audit-mailer']);
  });

  it("when a version's header filter does not match, then that version does not take the message", () => {
    const flagged: Route = { ...after, where: { flagged: 'yes' } };

    expect(routesOf([before, flagged], CORRECTED)).toEqual([]);
    expect(routesOf([before, flagged], CORRECTED, { flagged: 'yes' })).toEqual([flagged]);
  });

  it('when two processes declare a consumer alike, in any order, then they name the same version', () => {
    const reordered: Route = { ...after, types: [CORRECTED, RECORDED] };
    const filtered = (where: Record<string, string>): Route => ({ ...after, where });

    expect(versionOf(reordered)).toBe(versionOf(after));
    expect(versionOf(filtered({ a: '1', b: '2' }))).toBe(versionOf(filtered({ b: '2', a: '1' })));
  });

  it('when a declaration differs in its queue, types or header filter, then it is another version', () => {
    const versions = [before, after, { ...after, queue: 'audit-mailer' }, { ...after, where: { flagged: 'yes' } }].map(
      versionOf,
    );

    expect(new Set(versions).size).toBe(versions.length);
  });
});
