import { randomUUID } from 'node:crypto';
import { freePort } from './support/app-process';
import { eventually } from './support/eventually';
import { TcpProxy } from './support/tcp-proxy';
import { ADMIN_TOKEN, TestApp } from './support/test-app';
import { TestDatabase } from './support/test-database';

const ROUTES = ['/plans', `/checkouts/${randomUUID()}`, '/checkouts?limit=5', '/admin/dead-letters'];
const DOWN = {
  statusCode: 503,
  error: 'Service Unavailable',
  message: 'down: postgres',
  details: { postgres: { status: 'down' } },
};

describe('Business routes while Postgres is down', () => {
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const proxies: TcpProxy[] = [];

  beforeAll(async () => {
    database = await TestDatabase.create();
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await database.drop();
  });

  /** An app that reaches Postgres through a proxy: closing the proxy is Postgres going away. */
  const appBehindProxy = async (open: boolean) => {
    const real = new URL(database.url);
    const proxy = new TcpProxy(await freePort(), { host: real.hostname, port: Number(real.port || 5432) });
    proxies.push(proxy);
    if (open) await proxy.open();
    const app = await TestApp.start({
      database,
      env: { DATABASE_URL: proxy.urlOf(database.url), DATABASE_RETRY_MS: '200' },
    });
    apps.push(app);
    return { app, proxy };
  };

  it('when Postgres goes away, then business routes answer 503 naming postgres, and 200 once it is back', async () => {
    const { app, proxy } = await appBehindProxy(true);
    await app.ready();

    await proxy.close();
    for (const path of ROUTES) {
      const response = await app.http().get(path).set('authorization', `Bearer ${ADMIN_TOKEN}`);
      expect({ path, status: response.status, body: response.body }).toEqual({ path, status: 503, body: DOWN });
    }

    await proxy.open();
    await eventually(async () => {
      await app.http().get('/plans').expect(200);
      await app.http().get('/admin/dead-letters').set('authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
    });
  });

  it('when Postgres has not answered since the start, then business routes answer 503 naming postgres', async () => {
    const { app } = await appBehindProxy(false);

    for (const path of ROUTES) {
      const response = await app.http().get(path).set('authorization', `Bearer ${ADMIN_TOKEN}`);
      expect({ path, status: response.status, body: response.body }).toEqual({ path, status: 503, body: DOWN });
    }
  });
});
