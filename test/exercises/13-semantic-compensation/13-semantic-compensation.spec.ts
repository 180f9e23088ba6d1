import { Faults } from '../../../src/infra/faults/faults';
import { CheckoutClient } from '../../support/checkout-client';
import { eventually } from '../../support/eventually';
import { quiet } from '../../support/quiet';
import { SmtpSink } from '../../support/smtp-sink';
import { EXERCISE_ENV } from '../support/exercise-app';
import { TestApp } from '../../support/test-app';
import { implementation, narrate, narrateTimeline } from '../support/track';
import { type Answer, MailroomModule } from './exercise';

const answer = implementation<Answer>(__dirname);

/** A buyer of the story: who they are, and what happened to their checkout. */
interface Story {
  name: string;
  email: string;
  checkoutId: string;
  welcomed: boolean;
  refunded: boolean;
  /** Whether the mailroom still has its record of the welcome, once quiet. */
  recordKept?: boolean;
  /** Emails to this buyer that the mail server turned away ("try again later"). */
  turnedAway?: number;
}

/**
 * Lesson 002, sagas: "what cannot be undone is compensated semantically: send a corrective
 * email, instead of pretending the first never left". Counted at a real SMTP server, once the
 * system is quiet, with every message delivered twice and the server busy once.
 */
describe('13. Semantic compensation: a refund after the welcome email', () => {
  let sink: SmtpSink;
  let app: TestApp;
  let client: CheckoutClient;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    app = await TestApp.start({ imports: [MailroomModule.with(answer, sink.url)], env: EXERCISE_ENV });
    client = new CheckoutClient(app);
  });
  afterAll(async () => {
    await app?.stop();
    await sink?.stop();
  });

  const welcomeOf = (checkoutId: string) => sink.withHeader('message-id', `<welcome.${checkoutId}@mailroom.test>`);
  const buy = async (name: string) => {
    const buyer = await client.createUser({ name });
    return { name, email: buyer.email, checkoutId: await client.start({ userId: buyer.id }) };
  };
  const refund = (checkoutId: string) =>
    client.admin(app.http().post(`/admin/payments/${checkoutId}/refund`)).expect(200);

  it('when buyers are refunded after their welcome, then each got exactly one email correcting it, and no one else got one', async () => {
    const faults = app.get(Faults);
    faults.set([
      { point: 'relay.push', action: 'duplicate' },
      { point: 'consumer:mailroom.send-welcome', action: 'fail' },
    ]);
    narrate('injected: every message is delivered twice (relay.push duplicate), all along');
    narrate("injected: the mail server refuses Carla's welcome, every time (consumer:mailroom.send-welcome fail)");
    const carla = await buy('Carla');
    await eventually(
      async () => {
        const [dead] = await app.database.query(
          `SELECT 1 FROM outbox.dead_letters WHERE consumer = 'mailroom.send-welcome' AND message->'payload'->>'checkoutId' = $1`,
          [carla.checkoutId],
        );
        expect(dead).toBeDefined();
      },
      { what: "Carla's welcome to be dead-lettered" },
    );
    narrate('Carla paid; her welcome never went out: it waits in the dead letters for a person');
    faults.set([{ point: 'relay.push', action: 'duplicate' }]);

    const [ana, bruno] = [await buy('Ana'), await buy('Bruno')];
    await eventually(() => expect([ana, bruno].map((b) => welcomeOf(b.checkoutId).length)).toEqual([1, 1]), {
      what: 'the welcomes of Ana and Bruno to reach the SMTP server',
    });
    narrate('Ana and Bruno paid and read their welcome: "your payment went through, your plan is ready"');

    let turnedAway = 0;
    sink.refuse = (mail) =>
      mail.to.includes(ana.email) &&
      mail.headers.get('message-id') !== `<welcome.${ana.checkoutId}@mailroom.test>` &&
      turnedAway++ === 0;
    narrate('the mail server is busy: it turns the next email for Ana away, once ("451, try again later")');

    await refund(ana.checkoutId);
    await refund(ana.checkoutId);
    await refund(carla.checkoutId);
    narrate('the operator refunds Ana (asking twice) and Carla; Bruno keeps his plan');
    await quiet(app);

    const [anaRecord] = await app.database.query(`SELECT 1 FROM mailroom.welcomes WHERE checkout_id = $1`, [
      ana.checkoutId,
    ]);
    const stories: Story[] = [
      { ...ana, welcomed: true, refunded: true, recordKept: Boolean(anaRecord), turnedAway: Math.min(turnedAway, 1) },
      { ...bruno, welcomed: true, refunded: false },
      { ...carla, welcomed: false, refunded: true },
    ];
    narrate(`the mailroom's record of Ana's welcome: ${anaRecord ? 'kept' : 'deleted'}`);
    for (const story of stories) narrate(`${story.name}'s inbox: ${inboxOf(story).join('; ') || 'empty'}`);
    await narrateTimeline(app, ana.checkoutId);

    const broken = stories.flatMap(brokenPromises);
    if (broken.length > 0) throw new Error(`What the buyers read is wrong: ${broken.join('; ')}`);
  });

  /** Every email the SMTP server accepted for this buyer, as "subject (Message-ID)". */
  const mailTo = (story: Story) => sink.received.filter((mail) => mail.to.includes(story.email));
  const inboxOf = (story: Story) =>
    mailTo(story).map((mail) => `"${mail.headers.get('subject')}" ${mail.headers.get('message-id')}`);

  /** What this buyer's inbox should hold, against what it holds. */
  function brokenPromises(story: Story): string[] {
    const mails = mailTo(story);
    const welcomes = mails.filter(
      (mail) => mail.headers.get('message-id') === `<welcome.${story.checkoutId}@mailroom.test>`,
    );
    const others = mails.length - welcomes.length;
    const broken: string[] = [];
    if (story.welcomed && welcomes.length > 1) {
      broken.push(
        `${story.name} got ${welcomes.length} emails with the welcome's Message-ID; a mail store that keeps the first copy of a message shows only the welcome, so a correction sent as the welcome again never reaches them`,
      );
    }
    if (story.welcomed && story.refunded && others === 0) {
      const forgotten =
        story.recordKept === false
          ? ' (deleting the record of the welcome changed nothing in their inbox)'
          : story.turnedAway
            ? ' (the mail server turned an email for them away once, "try again later", and nothing tried again)'
            : '';
      broken.push(`${story.name} read the welcome, then was refunded, and got no other email saying so${forgotten}`);
    }
    if (others > 1) broken.push(`${story.name} got ${others} emails correcting the welcome, where one says it`);
    if (!story.refunded && others > 0) broken.push(`${story.name} was never refunded, yet got a correction`);
    if (!story.welcomed && others > 0) {
      broken.push(`${story.name} never got a welcome, yet got ${others} email(s) correcting one`);
    }
    return broken;
  }
});
