import { IsIn, IsInt, IsOptional, IsString, IsUUID, Min } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { outgoing } from '../../../src/infra/outbox/publishing/outgoing-message';
import type { InboxOutcome } from '../../../src/infra/outbox/consuming/inbox';
import { defineCommand, defineEvent, type MessageContract } from '../../../src/infra/outbox/message';
import type { MessageHandler } from '../../../src/infra/outbox/consuming/subscriptions';
import type { CommandStep, Compensation, StepFailure } from '../../../src/infra/steps';
import { TransportRig } from '../../support/transport-rig';

class AccessCommand {
  @IsUUID() checkoutId!: string;
  @IsInt() @Min(1) attempt!: number;
}
class AccessAnswer {
  @IsUUID() checkoutId!: string;
  @IsIn(['granted', 'refused', 'revoked']) outcome!: string;
  @IsOptional() @IsString() reason?: string;
}
class StepFailed implements StepFailure {
  @IsUUID() checkoutId!: string;
  @IsString() step!: string;
  @IsString() error!: string;
  @IsInt() @Min(1) attempt!: number;
}
const GrantAccess = defineCommand('unit.grant-access.v1', AccessCommand);
const RevokeAccess = defineCommand('unit.revoke-access.v1', AccessCommand);
const AccessAnswered = defineEvent('unit.access-answered.v1', AccessAnswer);
const AccessStepFailed = defineEvent('unit.access-step-failed.v1', StepFailed);

interface Outcome {
  outcome: 'granted' | 'refused';
  reason?: string;
  isNew: boolean;
}

/** A step declared as a participant's slice declares one: it can refuse, and it answers either way. */
const grantStep: CommandStep<AccessCommand, Outcome> = {
  name: 'unit.grant-access',
  refuse: (reason) => ({ outcome: 'refused', reason, isNew: true }),
  answer: ({ checkoutId }, { outcome, reason }) =>
    outgoing(AccessAnswered, { checkoutId, outcome, ...(reason ? { reason } : {}) }),
  isNew: (result) => result.isNew,
  failure: AccessStepFailed,
};
const revokeStep: Compensation<AccessCommand, { isNew: boolean }> = {
  kind: 'compensation',
  name: 'unit.revoke-access',
  answer: ({ checkoutId }) => outgoing(AccessAnswered, { checkoutId, outcome: 'revoked' }),
  isNew: (result) => result.isNew,
  failure: AccessStepFailed,
};

/**
 * The step runner, as a participant's command handler and reaction use it: inside a delivery that
 * the inbox runs (the rig's inbox, no app), the step's work and its answer commit in the
 * delivery's transaction, or neither does; a refusal is an answer, a thrown error a failure that
 * its sender is told; a compensation answers like a step.
 */
describe('The step runner', () => {
  let rig: TransportRig;

  beforeAll(async () => {
    rig = await TransportRig.start();
  });
  afterAll(() => rig?.stop());

  /** The command delivered once to a consumer whose handler is `handle`. */
  async function deliver(contract: MessageContract<AccessCommand>, command: AccessCommand, handle: MessageHandler) {
    const [id] = await rig.publish({ contract, payload: command as never, aggregateId: command.checkoutId });
    const outcome: Promise<InboxOutcome> = rig.inbox.handle({
      id,
      consumer: 'unit.carry-out',
      attempt: 1,
      subscription: { queue: 'unit', exclusive: false, dedup: 'transport', contracts: [contract], where: {}, handle },
    });
    return { id, outcome: await outcome };
  }
  const commandOf = (): AccessCommand => ({ checkoutId: randomUUID(), attempt: 1 });
  /** What the participant said about this checkout, in the outbox. */
  const answers = (checkoutId: string) =>
    rig.query<{ type: string; payload: Record<string, unknown> }>(
      `SELECT type, payload FROM outbox.messages WHERE aggregate_id = $1 AND kind = 'event' ORDER BY created_at`,
      [checkoutId],
    );
  const effects = async (checkoutId: string) =>
    (await rig.query(`SELECT 1 FROM unit.effects WHERE entry_id = $1`, [checkoutId])).length;
  const inboxRows = async (id: string) =>
    (await rig.query(`SELECT 1 FROM outbox.inbox WHERE message_id = $1`, [id])).length;
  const granting =
    (result: Partial<Outcome> = {}): ((command: AccessCommand) => () => Promise<Outcome>) =>
    (command) =>
    async () => {
      await rig.noteEffect('unit.carry-out', command.checkoutId);
      return { outcome: 'granted', isNew: true, ...result };
    };

  it('when a command’s work takes effect, then its effect, its answer and the inbox row commit together', async () => {
    const command = commandOf();

    const { id, outcome } = await deliver(GrantAccess, command, () =>
      rig.stepRunner.command(grantStep, command, granting()(command)),
    );

    expect(outcome).toBe('ok');
    expect(await effects(command.checkoutId)).toBe(1);
    expect(await answers(command.checkoutId)).toEqual([
      { type: AccessAnswered.type, payload: { checkoutId: command.checkoutId, outcome: 'granted' } },
    ]);
    expect(await inboxRows(id)).toBe(1);
  });

  it('when the delivery fails after the step, then neither the step’s effect nor its answer is kept', async () => {
    const command = commandOf();

    await expect(
      deliver(GrantAccess, command, async () => {
        await rig.stepRunner.command(grantStep, command, granting()(command));
        throw new Error('the handler failed after the step');
      }),
    ).rejects.toThrow('after the step');

    expect(await effects(command.checkoutId)).toBe(0);
    expect(await answers(command.checkoutId)).toEqual([]);
  });

  it('when a command’s work throws, then its writes are undone, and its failure answers once, committed with the inbox row', async () => {
    const command = { ...commandOf(), attempt: 2 };
    let runs = 0;

    const { id, outcome } = await deliver(GrantAccess, command, () =>
      rig.stepRunner.command(grantStep, command, async () => {
        runs += 1;
        await rig.noteEffect('unit.carry-out', command.checkoutId);
        throw new Error('the card service broke');
      }),
    );

    expect(outcome).toBe('ok');
    expect(runs).toBe(1);
    expect(await effects(command.checkoutId)).toBe(0);
    expect(await answers(command.checkoutId)).toEqual([
      {
        type: AccessStepFailed.type,
        payload: {
          checkoutId: command.checkoutId,
          step: 'unit.grant-access',
          error: 'the card service broke',
          attempt: 2,
        },
      },
    ]);
    expect(await inboxRows(id)).toBe(1);
  });

  it('when a step refuses, then its refusal is its answer, with what it wrote, and no failure', async () => {
    const command = commandOf();

    const { outcome } = await deliver(GrantAccess, command, () =>
      rig.stepRunner.command(grantStep, command, async () => {
        await rig.noteEffect('unit.carry-out', command.checkoutId);
        return grantStep.refuse!('no seats left');
      }),
    );

    expect(outcome).toBe('ok');
    expect(await effects(command.checkoutId)).toBe(1);
    expect(await answers(command.checkoutId)).toEqual([
      {
        type: AccessAnswered.type,
        payload: { checkoutId: command.checkoutId, outcome: 'refused', reason: 'no seats left' },
      },
    ]);
  });

  it('when a command’s result is not new, then it is answered again; a reaction’s is not announced again', async () => {
    const [commanded, reacted] = [commandOf(), commandOf()];

    await deliver(GrantAccess, commanded, () =>
      rig.stepRunner.command(grantStep, commanded, granting({ isNew: false })(commanded)),
    );
    await deliver(GrantAccess, reacted, async () => {
      await rig.stepRunner.react(grantStep, reacted, granting({ isNew: true })(reacted));
      await rig.stepRunner.react(grantStep, reacted, granting({ isNew: false })(reacted));
    });

    expect(await answers(commanded.checkoutId)).toHaveLength(1);
    expect(await answers(reacted.checkoutId)).toHaveLength(1);
    expect(await effects(reacted.checkoutId)).toBe(2);
  });

  it('when a compensation runs, then its undoing and its answer commit together; when it throws, its failure names it', async () => {
    const [undone, stuck] = [commandOf(), commandOf()];

    await deliver(RevokeAccess, undone, () =>
      rig.stepRunner.command(revokeStep, undone, async () => {
        await rig.noteEffect('unit.carry-out', undone.checkoutId);
        return { isNew: true };
      }),
    );
    await deliver(RevokeAccess, stuck, () =>
      rig.stepRunner.command(revokeStep, stuck, async () => {
        await rig.noteEffect('unit.carry-out', stuck.checkoutId);
        throw new Error('the access cannot be revoked');
      }),
    );

    expect(await effects(undone.checkoutId)).toBe(1);
    expect(await answers(undone.checkoutId)).toEqual([
      { type: AccessAnswered.type, payload: { checkoutId: undone.checkoutId, outcome: 'revoked' } },
    ]);
    expect(await effects(stuck.checkoutId)).toBe(0);
    expect(await answers(stuck.checkoutId)).toEqual([
      {
        type: AccessStepFailed.type,
        payload: {
          checkoutId: stuck.checkoutId,
          step: 'unit.revoke-access',
          error: 'the access cannot be revoked',
          attempt: 1,
        },
      },
    ]);
  });
});
