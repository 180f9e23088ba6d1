import { checkServices } from './services';

/**
 * Once per run of `npm run test:unit`: checks that Postgres and Redis answer and names the run.
 * No template database and no app: the unit specs boot nothing, and those that need Postgres
 * migrate a database of their own with the transport's migrations alone (test/support/transport-rig.ts).
 */
export default async function unitGlobalSetup(): Promise<void> {
  await checkServices('npm run test:unit');
}
