import type { Client } from 'pg';
import type { EntityManager } from 'typeorm';
import { AppPgClient } from './app-pg-client';
import { sqlStateOf } from './sql-state';

// A transaction's statements in one write with others, through the app's client (AppPgClient):
// held for the next statement, asked for together, or a lock taken with the read after it.

/**
 * Writes a row in the transaction of `tx` without a round trip of its own: the app's client sends
 * it with the transaction's next statement or its COMMIT (AppPgClient.sendWithNext). For a
 * statement whose result nobody needs: its failure fails the transaction, later.
 */
export async function sendWithNext(tx: EntityManager, text: string, values: unknown[]): Promise<void> {
  const client: unknown = await tx.queryRunner?.connect();
  if (client instanceof AppPgClient && client.sendWithNext(text, values)) return;
  await tx.query(text, values);
}

/**
 * Runs a statement of the transaction of `tx` whose answer is wanted, but not at once: it goes in
 * one write with the transaction's next statement or its COMMIT (AppPgClient.answerWithNext), and
 * `answer` resolves with its rows once that write is answered. Outside a transaction, or by any
 * other client, it is sent alone and awaited here.
 */
export async function answerWithNext<R>(
  tx: EntityManager,
  text: string,
  values: unknown[],
): Promise<{ answer: Promise<R[]> }> {
  const client: unknown = await tx.queryRunner?.connect();
  const held = client instanceof AppPgClient ? client.answerWithNext(text, values) : undefined;
  if (held) return { answer: held.then((result) => result.rows as R[]) };
  const rows = (await tx.query(text, values)) as R[];
  return { answer: Promise.resolve(rows) };
}

/**
 * As sendWithNext, on a pool client used without TypeORM (a pool whose Client is AppPgClient):
 * held for the next statement in a transaction, sent alone otherwise or by any other client.
 */
export async function sendWithNextOn(client: object, text: string, values: unknown[]): Promise<void> {
  if (client instanceof AppPgClient && client.sendWithNext(text, values)) return;
  await (client as Client).query(text, values);
}

/** Postgres refusing a statement because an earlier one of its transaction had failed. */
const IN_FAILED_TRANSACTION = '25P02';

/**
 * Waits for statements asked for together (sent in one write): their answers, in order; or, if
 * any failed, the error that failed the transaction, not the refusals that followed it (a held
 * lock's timeout fails the statement it rode with, and every later one with 25P02, in whatever
 * order their callers hear of it).
 */
export async function together<T extends readonly unknown[]>(asked: {
  [K in keyof T]: T[K] | Promise<T[K]>;
}): Promise<T> {
  const answers = await Promise.allSettled(asked);
  const failures = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as unknown] : []));
  const cause = failures.find((error) => sqlStateOf(error) !== IN_FAILED_TRANSACTION) ?? failures[0];
  if (failures.length > 0) throw cause;
  return answers.map((answer) => (answer as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * Takes a lock on `key` that lasts until the transaction of `tx` ends (an advisory lock: it can
 * guard rows that do not exist yet), without a round trip of its own: it goes in one write with
 * the transaction's next statement, which Postgres runs once the lock is granted. That statement
 * takes its snapshot then, so a read sees what the lock's previous holder committed.
 */
export const lockUntilCommit = (tx: EntityManager, key: string): Promise<void> =>
  sendWithNext(tx, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
