import { execFileSync } from 'node:child_process';

/** The first commit written under the rule in docs/development.md#commits; the history before it is as it was. */
export const FIRST_UNDER_THE_RULE = '18043ae';

const SCOPED = /^[a-z0-9][a-z0-9/-]*(?: [a-z0-9/-]+)?: \S/;
const MERGE_OR_REVERT = /^(Merge|Revert) /;

/** What is wrong with a commit subject: longer than 72 characters, or not scoped (`outbox: ...`). */
export function subjectProblems(subjects: string[]): string[] {
  return subjects.flatMap((subject) => {
    if (subject.length > 72) return [`${subject.length} characters (at most 72): ${subject}`];
    if (!SCOPED.test(subject) && !MERGE_OR_REVERT.test(subject))
      return [`not scoped (scope: what it does): ${subject}`];
    return [];
  });
}

/**
 * The subjects of the commits from FIRST_UNDER_THE_RULE to HEAD, or of the last 50 where the clone
 * does not reach it (a shallow one).
 */
export function subjectsUnderTheRule(root: string): string[] {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  let range: string[];
  try {
    git('cat-file', '-e', `${FIRST_UNDER_THE_RULE}^{commit}`);
    range = [`${FIRST_UNDER_THE_RULE}^..HEAD`];
  } catch {
    range = ['-n', '50', 'HEAD'];
  }
  return git('log', '--format=%s', ...range)
    .split('\n')
    .filter((line) => line.length > 0);
}
