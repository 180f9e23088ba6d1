import { Logger } from '@nestjs/common';

/** A BullMQ script as its package defines it, before any connection loads it. */
interface Script {
  name: string;
  content: string;
  keys: number;
}

/**
 * Where BullMQ's `moveToActive` and `moveToFinished` (which fetches the next job) take a job: the
 * queue's marker is added again every time, so that another worker wakes for the next job.
 */
const ALWAYS = `  rcall("HINCRBY", jobKey, "ats", 1)
  addBaseMarkerIfNeeded(markerKey, false)`;

/** The same, only while a job still waits (KEYS[1] is the wait list, KEYS[3] the prioritized set, in both scripts). */
const WHILE_JOBS_WAIT = `  rcall("HINCRBY", jobKey, "ats", 1)
  if rcall("LLEN", KEYS[1]) > 0 or rcall("ZCARD", KEYS[3]) > 0 then
    addBaseMarkerIfNeeded(markerKey, false)
  end`;

let applied: string[] | undefined;

/**
 * A worker blocked on its queue's marker wakes when the marker is added. BullMQ adds it again
 * whenever a job is taken, waiting jobs or not: at a light load, the worker that took the last
 * job wakes at once on its own marker and asks for a job that is not there (a blocking pop and an
 * empty `moveToActive`, two of the seven commands a job costs). This makes the two scripts that
 * take a job add the marker only while another job waits, which is when another worker has
 * something to take; adding a job, promoting a delayed one and moving a stalled one back still add
 * it as before. Applied to the scripts before any connection loads them (each connection defines
 * them once), for every BullMQ queue and worker of the process. If BullMQ's scripts no longer read
 * as expected (another version), they are left as they are, and this says so once (ADR 0085).
 * Returns the scripts changed.
 */
export function wakeWorkersOnlyForWaitingJobs(): string[] {
  if (applied) return applied;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the scripts' module, which BullMQ's connections read
  const scripts = require('bullmq/dist/cjs/scripts') as Record<string, Script>;
  const targets = [scripts.moveToActive, scripts.moveToFinished];
  if (targets.some((script) => script?.content.split(ALWAYS).length !== 2)) {
    new Logger('BullMQ').warn(
      "BullMQ's moveToActive/moveToFinished scripts are not the ones expected: a worker wakes after every job it takes, as BullMQ makes it",
    );
    return (applied = []);
  }
  for (const script of targets) script.content = script.content.replace(ALWAYS, WHILE_JOBS_WAIT);
  return (applied = targets.map((script) => script.name));
}
