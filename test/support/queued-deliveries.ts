import type { Queue } from 'bullmq';
import type { OutboxJobData } from '../../src/infra/outbox/outbox.queues';

/** The deliveries a job holds: a batch job's several, or a job of one delivery's one. */
const deliveriesOf = (data: OutboxJobData) => ('deliveries' in data ? data.deliveries : [data]);

/**
 * Whether a job still waiting or running in `queue` holds the delivery of `messageId` to
 * `consumer`: alone under its own id, or in a batch job (whose id names neither). A delivery
 * done, or given up on, is in no job.
 */
export async function stillQueued(queue: Queue, messageId: string, consumer: string): Promise<boolean> {
  const jobs = await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized']);
  return jobs.some(
    (job) =>
      job !== undefined &&
      deliveriesOf(job.data as OutboxJobData).some(
        (delivery) => delivery.id === messageId && delivery.consumer === consumer,
      ),
  );
}
