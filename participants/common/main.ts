import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ParticipantConfig } from './config';

/** How a participant's `main.ts` starts it: its name, its settings, its migration, its app. */
export interface Participant<Config extends ParticipantConfig> {
  name: string;
  readConfig(): Config;
  migrate(databaseUrl: string): Promise<string[]>;
  create(config: Config): Promise<NestExpressApplication>;
}

/**
 * `npm run <participant>`: migrates the service's own database (creating it if missing), then
 * serves on its port. `npm run <participant> -- migrate` only migrates, then exits.
 */
export function runParticipant<Config extends ParticipantConfig>(participant: Participant<Config>): void {
  const start = async () => {
    const config = participant.readConfig();
    const log = new Logger(participant.name);
    const applied = await participant.migrate(config.databaseUrl);
    applied.forEach((id) => log.log(`Applied migration ${id}`));
    if (process.argv.includes('migrate')) return;
    const app = await participant.create(config);
    app.enableShutdownHooks();
    await app.listen(config.port, config.host);
    log.log(`${participant.name} listening on ${await app.getUrl()}${config.adminToken ? ', admin API open' : ''}`);
  };
  start().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
