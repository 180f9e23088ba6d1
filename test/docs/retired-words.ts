import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A word the code and the pages no longer use, how to find it, and what says the thing now. */
export interface RetiredWord {
  word: string;
  pattern: RegExp;
  instead: string;
}

/**
 * One noun per thing (docs/glossary.md says each once). These were second names of things that
 * have one; the regular expressions match names and prose, not the external names that keep the
 * old spelling for compatibility (there are none among these: no message type, table, column,
 * route, metric or variable ever carried them).
 */
export const RETIRED_WORDS: readonly RetiredWord[] = [
  { word: 'Reply', pattern: /\bReply\b/, instead: 'AnswerPayload (what an answer carries)' },
  {
    word: 'Meaning',
    pattern: /\bMeanings?\b|\bMEANINGS\b|\bmeaningsOf\b/,
    instead: 'AnswerOfStep (orchestration) or FactOfEvent (choreography)',
  },
  { word: 'coordinator', pattern: /coordinator/i, instead: 'mode (Mode, ChoreographyMode, OrchestrationMode)' },
  { word: 'saga machine', pattern: /saga[- ]?machine/i, instead: 'saga (domain/saga.ts, evolve, decide)' },
  { word: 'SagaRunner', pattern: /SagaRunner|saga\.runner/, instead: 'Orchestrator (orchestrator.ts)' },
  { word: 'checkout-saga', pattern: /checkout-saga|CHECKOUT_SAGA/, instead: 'saga (saga.*.spec.ts, saga-commands.ts)' },
  {
    word: 'GatewayAnswer',
    pattern: /GatewayAnswer/,
    instead: 'GatewayResponse: a gateway responds, a participant answers',
  },
];

/**
 * Where the words are checked, from the repository's root. docs/adr/ is left out: a decision record
 * is kept as it was decided, in the words of its day (ADR 0083 names the saga machine's file, ADR
 * 0016 the coordinators); a later record supersedes it rather than rewriting it.
 */
export const CHECKED = ['src', 'docs'];
const LEFT_OUT = [path.join('docs', 'adr')];
const BINARY = /\.(png|jpe?g|gif|ico|woff2?)$/i;

/** Every hit of a retired word in `text` (the file at `file`), as `file:line: word (say ...)`. */
export function retiredWordsInText(file: string, text: string, words = RETIRED_WORDS): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      words
        .filter(({ pattern }) => pattern.test(line))
        .map(({ word, instead }) => `${file}:${index + 1}: ${word} (say ${instead}): ${line.trim()}`),
    );
}

/** The files under `dir` (a path from `root`), but those left out and binary ones. */
function filesUnder(root: string, dir: string): string[] {
  if (LEFT_OUT.includes(dir)) return [];
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(root, relative);
    return entry.isFile() && !BINARY.test(entry.name) ? [relative] : [];
  });
}

/** Every hit of a retired word in the checked folders under `root`. */
export function retiredWordsIn(root: string, words = RETIRED_WORDS): string[] {
  return CHECKED.flatMap((dir) => filesUnder(root, dir)).flatMap((file) =>
    retiredWordsInText(file, readFileSync(path.join(root, file), 'utf8'), words),
  );
}
