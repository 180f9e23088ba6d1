import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from './app-process';

describe('The ports tests hand out', () => {
  afterEach(() => jest.restoreAllMocks());

  it('leave out 10080, which fetch refuses to reach even with a server there', async () => {
    const server = createServer((_, response) => response.end('here'));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(10_080, '127.0.0.1', resolve));
    try {
      const error = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`).catch((e: Error) => e);
      expect(error).toMatchObject({ message: 'fetch failed', cause: { message: 'bad port' } });
    } finally {
      server.close();
    }

    // The pick lands on it first; the port handed out is another.
    jest.spyOn(Math, 'random').mockReturnValueOnce(0.008_000_1);
    expect(await freePort()).not.toBe(10_080);
  });
});
