import { unlinkRunKeys } from './global-teardown';
import { laneCluster } from './logical-lane';
import { stopRunParticipants } from './run-participants';

/**
 * Stops the lane's cluster (its databases go with its directory) and the run's participants,
 * and removes the run's Redis keys.
 */
export default async function logicalLaneTeardown(): Promise<void> {
  await stopRunParticipants();
  await laneCluster.get()?.stop();
  laneCluster.set(undefined);
  await unlinkRunKeys();
}
