import { unlinkRunKeys } from './global-teardown';
import { laneCluster } from './logical-lane';
import { stopRunAuthority } from './run-authority';

/**
 * Stops the lane's cluster (its databases go with its directory) and the run's fiscal authority,
 * and removes the run's Redis keys.
 */
export default async function logicalLaneTeardown(): Promise<void> {
  await stopRunAuthority();
  await laneCluster.get()?.stop();
  laneCluster.set(undefined);
  await unlinkRunKeys();
}
