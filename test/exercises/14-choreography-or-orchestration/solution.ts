import { type Answers, fromTheLastRun } from './exercise';

/**
 * The reference answers. Their figures are read from the last run when the check reads them
 * (`fromTheLastRun`), since no one knows a run's durations before it ran; a learner copies theirs
 * from the table their own run printed.
 */
export const answers: Answers = {
  // Silence: the saga's deadline sends the step again and the checkout completes by itself; the
  // choreography waits in INTERVENTION for a person. With many steps, that is every step.
  a: { mode: 'orchestration', figure: fromTheLastRun('content.grant-access timeout-after') },
  // Nothing to order or undo: every reaction costs one message, not a command and its answer.
  b: { mode: 'choreography', figure: fromTheLastRun('messages per checkout') },
  // A compensable step that goes silent: the saga resends it, and undoes in order if it must;
  // the choreography has no one waiting for that answer.
  c: { mode: 'orchestration', figure: fromTheLastRun('billing.authorize-payment timeout-after') },
};
