import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { readCardGatewayConfig } from './card-gateway.config';
import { createCardGateway } from './card-gateway.module';
import { migrateCardGateway } from './database/migrate';

/**
 * `npm run card-gateway`: migrates the service's own database (creating it if missing), then
 * serves on CARD_GATEWAY_PORT. `npm run card-gateway -- migrate` only migrates, then exits.
 */
async function main(): Promise<void> {
  const config = readCardGatewayConfig();
  const log = new Logger('CardGateway');
  const applied = await migrateCardGateway(config.databaseUrl);
  applied.forEach((id) => log.log(`Applied migration ${id}`));
  if (process.argv.includes('migrate')) return;
  const app = await createCardGateway(config);
  app.enableShutdownHooks();
  await app.listen(config.port, config.host);
  log.log(`Card gateway listening on ${await app.getUrl()}${config.adminToken ? ', admin API open' : ''}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
