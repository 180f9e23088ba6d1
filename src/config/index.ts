import { checkoutConfig, sagaConfig } from '../modules/checkout';
import { mailConfig } from '../modules/notifications';
import { authConfig } from '../infra/auth/auth.config';
import { rateLimitConfig } from '../infra/auth/rate-limit.config';
import { outboxConfig } from '../infra/outbox/outbox.config';
import { operationsConfig } from '../operations/operations.config';
import { appConfig } from './app.config';
import { databaseConfig } from './database.config';
import { redisConfig } from './redis.config';

/** Every concern's configuration; each validates its own variables. */
export const configFactories = [
  appConfig,
  authConfig,
  rateLimitConfig,
  databaseConfig,
  redisConfig,
  outboxConfig,
  checkoutConfig,
  sagaConfig,
  mailConfig,
  operationsConfig,
];
