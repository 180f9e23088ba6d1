import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CHECKED, retiredWordsIn, retiredWordsInText } from './retired-words';

const root = path.resolve(__dirname, '../..');

describe('The retired words', () => {
  it(`when ${CHECKED.join(' and ')} are read (but docs/adr), then no retired word is left in them`, () => {
    expect(retiredWordsIn(root)).toEqual([]);
  });

  it('when a retired word is planted, then the check names its file and line and what to say instead', () => {
    const planted = mkdtempSync(path.join(tmpdir(), 'retired-words-'));
    try {
      mkdirSync(path.join(planted, 'src', 'orchestration'), { recursive: true });
      mkdirSync(path.join(planted, 'docs', 'adr'), { recursive: true });
      writeFileSync(
        path.join(planted, 'src', 'orchestration', 'start.ts'),
        'const a = 1;\nexport class SagaRunner {}\n',
      );
      writeFileSync(path.join(planted, 'docs', 'page.md'), '# A page\n\nThe coordinator of the mode.\n');
      writeFileSync(path.join(planted, 'docs', 'adr', '0001-old.md'), 'The saga machine, as it was decided.\n');

      expect(retiredWordsIn(planted)).toEqual([
        `${path.join('src', 'orchestration', 'start.ts')}:2: SagaRunner (say Orchestrator (orchestrator.ts)): export class SagaRunner {}`,
        `${path.join('docs', 'page.md')}:3: coordinator (say mode (Mode, ChoreographyMode, OrchestrationMode)): The coordinator of the mode.`,
      ]);
    } finally {
      rmSync(planted, { recursive: true, force: true });
    }
  });

  it('when a word only contains a retired one, or is an answer in prose, then it is not a hit', () => {
    expect(retiredWordsInText('x.md', 'the lost reply; coordination; no-reply@; meaning; AnswerPayload')).toEqual([]);
  });
});
