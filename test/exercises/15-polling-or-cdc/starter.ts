import type { Answers } from './exercise';

/**
 * Your answers to the two cases of README.md, checked by `npm run exercise -- 15`.
 *
 * TODO, for each case:
 * - `relay`: the relay you choose, 'polling' or 'logical';
 * - `figure`: the one row of the table your own `npm run bench -- relays` printed that decides it:
 *   the row's name (its first column) and its two cells, copied as your run printed them.
 *
 * The check reads your last run's figures (the newest bench/results/bench-*.json with both relays
 * in it): a figure from someone else's run, or from the README, is not one of yours.
 */
export const answers: Answers = {
  // (a) A producer database already near its CPU limit, writing outbox rows all day.
  a: { relay: '', figure: { row: '', polling: '', logical: '' } },
  // (b) A team without replication rights, whose on-call cannot watch one more thing; a hop may take a few ms.
  b: { relay: '', figure: { row: '', polling: '', logical: '' } },
};
