import type { InvalidParticipantConfig } from '../common/config';
import { readCardGatewayConfig } from './card-gateway.config';

describe("The card gateway service's settings", () => {
  it('when nothing is set, then it serves on 4010 from a database of its own, with no admin API', () => {
    expect(readCardGatewayConfig({})).toEqual({
      port: 4010,
      host: '127.0.0.1',
      databaseUrl: 'postgres://postgres:postgres@127.0.0.1:5432/card_gateway',
      adminToken: undefined,
      voidsByKey: true,
    });
  });

  it('when values are wrong, then each is named and none is echoed', () => {
    const problems = (() => {
      try {
        readCardGatewayConfig({
          CARD_GATEWAY_PORT: 'http',
          CARD_GATEWAY_ADMIN_TOKEN: 'short',
          CARD_GATEWAY_VOIDS_BY_KEY: 'no',
        });
        return [];
      } catch (error) {
        return (error as InvalidParticipantConfig).problems;
      }
    })();

    expect(problems).toEqual([
      'CARD_GATEWAY_PORT: must be a port number (0 to 65535)',
      'CARD_GATEWAY_ADMIN_TOKEN: must be at least 16 characters',
      'CARD_GATEWAY_VOIDS_BY_KEY: must be true or false',
    ]);
  });
});
