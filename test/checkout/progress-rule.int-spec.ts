import { randomUUID } from 'node:crypto';
import type { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { QueryResult } from 'pg';
import { AppPgClient } from '../../src/infra/database/app-pg-client';
import { STEP_ORDER } from '../../src/modules/checkout/core/checkout-steps';
import { CheckoutsRepository } from '../../src/modules/checkout/database/checkouts.repository';
import {
  advance,
  CHECKOUT_STATUSES,
  type CheckoutProgress,
  isTerminal,
  type ProgressFact,
} from '../../src/modules/checkout/domain/checkout';
import { eventually } from '../support/eventually';
import { TestDatabase } from '../support/test-database';

/** A step the order does not hold, which ranks below every step. */
const STRAY = 'nowhere.not-a-step';
const STEPS = [...STEP_ORDER, STRAY];
const REASONS = ['earlier', 'later'];

/** Every fact of each kind, over every step and reason: a kind added to ProgressFact must be listed here. */
const FACTS: { [K in ProgressFact['kind']]: ProgressFact[] } = {
  reached: STEPS.map((step) => ({ kind: 'reached', step })),
  compensating: STEPS.flatMap((step) => REASONS.map((reason) => ({ kind: 'compensating' as const, step, reason }))),
  completed: [{ kind: 'completed' }],
  rejected: REASONS.map((reason) => ({ kind: 'rejected', reason })),
  failed: REASONS.map((reason) => ({ kind: 'failed', reason })),
  intervention: REASONS.map((reason) => ({ kind: 'intervention', reason })),
  resumed: [{ kind: 'resumed' }],
};

/** Every state a checkout's row can be in: each status, at each step, with and without a reason. */
const STATES: CheckoutProgress[] = CHECKOUT_STATUSES.flatMap((status) =>
  STEPS.flatMap((step) => [null, 'earlier'].map((failureReason) => ({ status, step, failureReason }))),
);

interface Case {
  id: string;
  state: CheckoutProgress;
  fact: ProgressFact;
}

/** The repository over one connection of the app's client, as the app's transactions give it. */
const repositoryOn = (client: AppPgClient) =>
  new CheckoutsRepository({
    tx: { query: async (text: string, values: unknown[]) => ((await client.query(text, values)) as QueryResult).rows },
  } as unknown as TransactionHost<TransactionalAdapterTypeOrm>);

describe("The read model's move in one statement, against the progress rule", () => {
  let database: TestDatabase;
  let client: AppPgClient;

  const insert = (cases: Case[]) =>
    database.query(
      `INSERT INTO checkout.checkouts (id, user_id, plan_id, payment_method, mode, status, step, failure_reason, correlation_id)
       SELECT id, gen_random_uuid(), 'premium', 'pm_card_ok', 'choreography', status, step, reason, 'progress-rule'
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS c(id, status, step, reason)`,
      [
        cases.map((c) => c.id),
        cases.map((c) => c.state.status),
        cases.map((c) => c.state.step),
        cases.map((c) => c.state.failureReason),
      ],
    );

  beforeAll(async () => {
    database = await TestDatabase.create();
    client = new AppPgClient({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  it('when any fact meets a checkout in any state, then the row is what advance says, and moved only if it changed', async () => {
    const cases: Case[] = STATES.flatMap((state) =>
      Object.values(FACTS)
        .flat()
        .map((fact) => ({ id: randomUUID(), state, fact })),
    );
    await insert(cases);
    const repository = repositoryOn(client);

    const moves = await Promise.all(cases.map((c) => repository.moveProgress(c.id, c.fact, STEP_ORDER)));
    const rows = await database.query<{
      id: string;
      status: string;
      step: string;
      reason: string | null;
      done: boolean;
    }>(
      `SELECT id, status, step, failure_reason AS reason, completed_at IS NOT NULL AS done
         FROM checkout.checkouts WHERE correlation_id = 'progress-rule'`,
    );

    const byId = new Map(rows.map((row) => [row.id, row]));
    const wrong = cases.flatMap((c, index) => {
      const expected = advance(c.state, c.fact, STEP_ORDER);
      const after = expected ?? c.state;
      const row = byId.get(c.id)!;
      const got = { status: row.status, step: row.step, failureReason: row.reason };
      const move = moves[index];
      const right =
        move.known &&
        JSON.stringify(got) === JSON.stringify(after) &&
        (expected ? move.moved?.status === expected.status && row.done === isTerminal(expected.status) : !move.moved);
      return right
        ? []
        : [`${JSON.stringify(c.state)} + ${JSON.stringify(c.fact)}: ${JSON.stringify({ got, moved: !!move.moved })}`];
    });

    // Each step (and the stray) reached, or compensating for either reason, and the eight facts of no step.
    expect(cases).toHaveLength(STATES.length * (3 * STEPS.length + 8));
    expect(wrong.slice(0, 20)).toEqual([]);
  });

  it('when the checkout does not exist, then nothing is written and it is said to be unknown', async () => {
    const move = await repositoryOn(client).moveProgress(randomUUID(), { kind: 'completed' }, STEP_ORDER);

    expect(move).toEqual({ known: false, moved: undefined });
  });

  it('when two facts about one checkout come at once, then the second is applied to the row as the first left it', async () => {
    const id = randomUUID();
    await insert([
      { id, state: { status: 'PENDING', step: STEP_ORDER[2], failureReason: null }, fact: { kind: 'completed' } },
    ]);
    const other = new AppPgClient({ connectionString: database.url });
    await other.connect();
    try {
      await client.query('BEGIN');
      await repositoryOn(client).moveProgress(id, { kind: 'failed', reason: 'first' }, STEP_ORDER);
      // Waits for the first: its snapshot still has the checkout PENDING, where it would start undoing.
      const second = repositoryOn(other).moveProgress(
        id,
        { kind: 'compensating', step: STEP_ORDER.at(-1)!, reason: 'second' },
        STEP_ORDER,
      );
      await eventually(
        async () => {
          const [waiting] = await database.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
            [(other as unknown as { processID: number }).processID],
          );
          return waiting.n === 1;
        },
        { what: "the second fact waits for the first's row lock" },
      );
      await client.query('COMMIT');

      expect((await second).moved).toBeUndefined();
      expect(
        await database.query(`SELECT status, step, failure_reason FROM checkout.checkouts WHERE id = $1`, [id]),
      ).toEqual([{ status: 'FAILED', step: STEP_ORDER[2], failure_reason: 'first' }]);
    } finally {
      await other.end();
    }
  });
});
