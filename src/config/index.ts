import { appConfig } from './app.config';
import { databaseConfig } from './database.config';
import { redisConfig } from './redis.config';

/**
 * The configuration every part of the app shares, loaded globally. A module's or an
 * infrastructure piece's own configuration is registered where it lives (`ConfigModule.forFeature`).
 */
export const configFactories = [appConfig, databaseConfig, redisConfig];
