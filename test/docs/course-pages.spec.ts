import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const exercisesDir = path.resolve(__dirname, '../exercises');
const exercises = readdirSync(exercisesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && /^\d\d-/.test(entry.name))
  .map((entry) => entry.name);

/**
 * The course's pages keep the promises its README makes: each exercise's story links the words
 * it uses to the glossary before its first section, and says how many hints `--hint N` has.
 * (Whether the links lead somewhere is links.spec.ts's business.)
 */
describe("The course's pages", () => {
  it.each(exercises)("when %s's README is read, then it links the glossary before its first section", (exercise) => {
    const readme = readFileSync(path.join(exercisesDir, exercise, 'README.md'), 'utf8');
    const beforeFirstSection = readme.split(/^## /m)[0];
    expect(beforeFirstSection).toMatch(/^\*\*Words\*\* .*\]\(\.\.\/\.\.\/\.\.\/docs\/glossary\.md(#[a-z-]+)?\)/m);
  });

  it.each(exercises)("when %s's README says how many hints it has, then its hints.md has that many", (exercise) => {
    const readme = readFileSync(path.join(exercisesDir, exercise, 'README.md'), 'utf8');
    const hintsFile = path.join(exercisesDir, exercise, 'hints.md');
    const hints = existsSync(hintsFile) ? readFileSync(hintsFile, 'utf8').match(/^## Hint \d+/gm)?.length : 0;
    const said = /\((\d+) in all/.exec(readme)?.[1];
    expect({ said: said && Number(said) }).toEqual({ said: hints || undefined });
  });
});
