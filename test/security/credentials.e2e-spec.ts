import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { CheckoutClient } from '../support/checkout-client';
import { eventually } from '../support/eventually';
import { logs, TestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** Two replicas of one deployment: one database, one queue prefix, started at the same time. */
async function twoReplicas(env: Record<string, string | undefined>): Promise<[TestApp, TestApp, TestDatabase]> {
  const database = await TestDatabase.create();
  const options = { database, queuePrefix: `credentials-${database.name}`, env: { APP_ROLES: 'api', ...env } };
  const [a, b] = await Promise.all([TestApp.start(options), TestApp.start(options)]);
  await Promise.all([a.ready(), b.ready()]);
  return [a, b, database];
}

describe("The deployment's own credentials", () => {
  const stops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('when two replicas without AUTH_TOKEN_SECRET sign up buyers at once, then they share one secret: each accepts the other’s tokens', async () => {
    const [a, b, database] = await twoReplicas({ AUTH_TOKEN_SECRET: undefined });
    stops.push(
      () => database.drop(),
      () => a.stop(),
      () => b.stop(),
    );

    const [fromA, fromB] = await Promise.all(
      [a, b].map(async (app) => (await app.http().post('/users').send(CheckoutClient.userBody()).expect(201)).body),
    );

    await b.http().get(`/users/${fromA.id}`).set('authorization', `Bearer ${fromA.token}`).expect(200);
    await a.http().get(`/users/${fromB.id}`).set('authorization', `Bearer ${fromB.token}`).expect(200);
    const { rows } = await database.pool.query(`SELECT name, length(value) AS length FROM auth.deployment_secrets`);
    expect(rows).toEqual([{ name: 'buyer-tokens', length: 43 }]);
  });

  it('when two replicas start with ADMIN_TOKEN=generate, then one token is made and logged once, and both accept it', async () => {
    const linesBefore = logs.matching((line) => /Operator token, made now/.test(String(line.msg))).length;
    const [a, b, database] = await twoReplicas({ ADMIN_TOKEN: 'generate' });
    stops.push(
      () => database.drop(),
      () => a.stop(),
      () => b.stop(),
    );

    const token = await eventually(async () => {
      const { rows } = await database.pool.query(`SELECT count(*)::int AS n FROM auth.operator_token`);
      expect(rows[0].n).toBe(1);
      const lines = logs.matching((line) => /Operator token, made now/.test(String(line.msg))).slice(linesBefore);
      expect(lines).toHaveLength(1);
      return String(lines[0].msg).match(/\bop_[A-Za-z0-9_-]{43}\b/)![0];
    });
    await a.http().get('/admin/sagas').set('authorization', `Bearer ${token}`).expect(200);
    await b.http().get('/admin/sagas').set('authorization', `Bearer ${token}`).expect(200);
    const { rows } = await database.pool.query(`SELECT sha256 FROM auth.operator_token`);
    expect(rows[0].sha256.toString('hex')).not.toContain(Buffer.from(token).toString('hex'));

    // `npm run operator-token`, as its sources: a new token, and the old one stops working everywhere.
    const { stdout } = await run(process.execPath, ['-r', '@swc-node/register', 'src/operator-token.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, DATABASE_URL: database.url, ADMIN_TOKEN: 'generate' },
    });
    const renewed = stdout.trim();
    expect(renewed).toMatch(/^op_[A-Za-z0-9_-]{43}$/);
    for (const app of [a, b]) {
      await eventually(
        async () => {
          await app.http().get('/admin/sagas').set('authorization', `Bearer ${token}`).expect(401);
          await app.http().get('/admin/sagas').set('authorization', `Bearer ${renewed}`).expect(200);
        },
        { timeoutMs: 10_000, what: 'the renewed operator token to replace the old one' },
      );
    }
  });

  it('when ADMIN_TOKEN is not set, then there is no operator surface and no token is made', async () => {
    const app = await TestApp.start({ env: { APP_ROLES: 'api', ADMIN_TOKEN: undefined } });
    stops.push(() => app.stop());
    await app.ready();

    await app.http().get('/admin/sagas').set('authorization', 'Bearer op_anything-at-all-0123456789').expect(404);
    const { rows } = await app.database.pool.query(`SELECT count(*)::int AS n FROM auth.operator_token`);
    expect(rows[0].n).toBe(0);
  });
});
