import path from 'node:path';
import { subjectProblems, subjectsUnderTheRule } from './commit-subjects';

const root = path.resolve(__dirname, '../..');

describe('The commit subjects', () => {
  it('when the history since the rule is read, then every subject is scoped and at most 72 characters', () => {
    const subjects = subjectsUnderTheRule(root);
    expect(subjects.length).toBeGreaterThan(0);
    expect(subjectProblems(subjects)).toEqual([]);
  });

  it('when a subject is long or unscoped, then the check names it', () => {
    const long = `outbox: ${'a very long subject '.repeat(4)}`;
    expect(
      subjectProblems([
        'outbox: write the dead letter with the last crash',
        long,
        'Fixed the relay',
        'Merge branch h1',
        'test: hand out ports below the ephemeral range, and a cluster bus too',
      ]),
    ).toEqual([`${long.length} characters (at most 72): ${long}`, 'not scoped (scope: what it does): Fixed the relay']);
  });
});
