import { type Answers, fromTheLastRun } from './exercise';

/**
 * The reference answers. Their figures are read from the last run when the check reads them
 * (`fromTheLastRun`), since no one knows a run's figures before it ran; a learner copies theirs
 * from the table their own run printed.
 */
export const answers: Answers = {
  // Decoding the WAL and marking the rows by id cost Postgres more a message than the claim that
  // finds and marks them in one statement: on a busy database, the log is not the cheaper reader.
  a: { relay: 'polling', figure: fromTheLastRun('Postgres CPU a message, drain / light') },
  // Woken at each commit, the polling relay's hop is as short as the log's at light load: the log
  // would buy them nothing they can measure, and needs what they do not have.
  b: { relay: 'polling', figure: fromTheLastRun('a hop at 50 events/s, p50 / p99') },
};
