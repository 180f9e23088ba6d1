import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { AppProcess } from './support/app-process';
import { eventually } from './support/eventually';
import { TestDatabase } from './support/test-database';

const root = path.resolve(__dirname, '..');

describe('The built app', () => {
  let database: TestDatabase;
  let app: AppProcess | undefined;

  beforeAll(async () => {
    database = await TestDatabase.create();
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' });
  });
  afterAll(async () => {
    await app?.stop();
    await database.drop();
  });

  it('when built and started with npm start, then it serves /health, /docs, /docs-json and /console within 20 s', async () => {
    const startedAt = Date.now();
    app = await AppProcess.start({ DATABASE_URL: database.url }, ['npm', 'start']);

    await eventually(async () => expect((await app!.get('/health')).status).toBe(200), { timeoutMs: 20_000 });
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect((await app.get('/docs')).status).toBe(200);
    expect((await app.get('/docs-json')).body).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
    expect((await app.get('/console/')).status).toBe(200);
    expect((await app.get('/console/app.js')).status).toBe(200);
  });
});
