import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { AppProcess } from './support/app-process';
import { eventually } from './support/eventually';
import { TestDatabase } from './support/test-database';
import { runId } from './support/test-env';

const root = path.resolve(__dirname, '..');

describe('The built app', () => {
  let database: TestDatabase;
  const apps: AppProcess[] = [];
  const npmStart = async () => {
    const app = await AppProcess.start({ DATABASE_URL: database.url, QUEUE_PREFIX: `t${runId()}-build` }, [
      'npm',
      'start',
    ]);
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    database = await TestDatabase.create();
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' });
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await database.drop();
  });

  it('when built and started with npm start, then it says once where it listens, and serves /health, /docs, /docs-json and /console within 20 s', async () => {
    const startedAt = Date.now();
    const app = await npmStart();

    await eventually(async () => expect((await app.get('/health')).status).toBe(200), { timeoutMs: 20_000 });
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect((await app.get('/docs')).status).toBe(200);
    expect((await app.get('/docs-json')).body).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
    expect((await app.get('/console/')).status).toBe(200);
    expect((await app.get('/console/app.js')).status).toBe(200);
    const listening = app.output.filter((line) => line.includes('Listening on'));
    expect(listening).toEqual([expect.stringContaining(`http://localhost:${app.port}: the API, its docs at`)]);
  });

  it('when npm start is sent SIGTERM, npm only, then the app shuts down gracefully and nothing is left running', async () => {
    const app = await npmStart();
    await eventually(async () => expect((await app.get('/health')).status).toBe(200), { timeoutMs: 20_000 });

    app.signalLeader('SIGTERM');

    expect(await app.exitCode()).toBe(0);
    expect(app.output.join('\n')).toMatch(/SIGTERM received[\s\S]*Stopped/);
    await eventually(() => expect(app.anyAlive).toBe(false), { what: 'every process of npm start gone' });
  });
});
