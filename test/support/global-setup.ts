import { startRunParticipants } from './run-participants';
import { checkServices } from './services';
import { migratedTemplate } from './template-database';

/**
 * Once per run: checks the services, then finds (or builds, when the migrations have changed) the
 * migrated template database that every test database is copied from, and tells the test files
 * its name; and starts the card gateway and the fiscal authority the run's checkouts pay and invoice at
 * (run-participants.ts).
 */
export default async function globalSetup(): Promise<void> {
  await checkServices('npm test');
  // Apart from each other: the participants have databases of their own.
  const [template] = await Promise.all([migratedTemplate(), startRunParticipants()]);
  process.env.TEST_TEMPLATE_DATABASE = template;
}
