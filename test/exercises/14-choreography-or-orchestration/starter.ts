import type { Answers } from './exercise';

/**
 * Your answers to the three cases of README.md, checked by `npm run exercise -- 14`.
 *
 * TODO, for each case:
 * - `mode`: the coordination you recommend, 'choreography' or 'orchestration';
 * - `figure`: the one row of the table your own `npm run compare` printed that decides it: the
 *   row's name (its first column) and its two cells, copied as your run printed them.
 *
 * The check reads your last run's figures (the newest bench/results/compare-*.json): a figure
 * from someone else's run, or from the README, is not one of yours.
 */
export const answers: Answers = {
  // (a) A checkout with 5 steps, several compensations, and rules that change every sprint.
  a: { mode: '', figure: { row: '', choreography: '', orchestration: '' } },
  // (b) When a video is published, the catalogue, the notifications and the analytics react.
  b: { mode: '', figure: { row: '', choreography: '', orchestration: '' } },
  // (c) A subscription: validate, charge, provision, and if any step fails, undo the previous ones in order.
  c: { mode: '', figure: { row: '', choreography: '', orchestration: '' } },
};
