import type { InvalidEnvironmentError } from '../../../config/env';
import { cardGatewayConfig } from './card-gateway.config';

/** The settings as the app reads them from `env` (and only from it). */
function settingsFrom(env: NodeJS.ProcessEnv) {
  const saved = process.env;
  process.env = env;
  try {
    return cardGatewayConfig();
  } finally {
    process.env = saved;
  }
}

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    settingsFrom(env);
    return [];
  } catch (error) {
    return (error as InvalidEnvironmentError).problems;
  }
}

describe('The card gateway settings', () => {
  it('when nothing is set, then the service is reached at its own default address, with bounded calls', () => {
    expect(settingsFrom({})).toEqual({
      url: 'http://127.0.0.1:4010',
      timeoutMs: 5_000,
      attempts: 3,
      backoffMs: 100,
      voidsByKey: true,
    });
  });

  it('when CARD_GATEWAY_URL is set, then the service is reached there, without a trailing slash', () => {
    expect(settingsFrom({ CARD_GATEWAY_URL: 'http://card-gateway:4010/', CARD_GATEWAY_ATTEMPTS: '5' })).toMatchObject({
      url: 'http://card-gateway:4010',
      attempts: 5,
    });
  });

  it('when CARD_GATEWAY_VOIDS_BY_KEY is false, then the gateway is known to void by id only', () => {
    expect(settingsFrom({ CARD_GATEWAY_VOIDS_BY_KEY: 'false' })).toMatchObject({ voidsByKey: false });
  });

  it('when a value is wrong, then each is named', () => {
    expect(
      problemsOf({
        CARD_GATEWAY_URL: 'card-gateway:4010',
        CARD_GATEWAY_TIMEOUT_MS: '10',
        CARD_GATEWAY_ATTEMPTS: '0',
        CARD_GATEWAY_VOIDS_BY_KEY: 'sometimes',
      }),
    ).toEqual([
      'CARD_GATEWAY_URL: must be an http:// or https:// URL',
      'CARD_GATEWAY_TIMEOUT_MS: must not be less than 100',
      'CARD_GATEWAY_ATTEMPTS: must not be less than 1',
      'CARD_GATEWAY_VOIDS_BY_KEY: must be true or false',
    ]);
  });
});
