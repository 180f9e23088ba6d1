import { unlinkRunKeys } from './global-teardown';
import { laneCluster } from './logical-lane';

/** Stops the lane's cluster (its databases go with its directory) and removes the run's Redis keys. */
export default async function logicalLaneTeardown(): Promise<void> {
  await laneCluster.get()?.stop();
  laneCluster.set(undefined);
  await unlinkRunKeys();
}
