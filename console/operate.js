// @ts-check
import { api } from './api.js';
import { clock, h, messageOf, notice, replace, statusBadge } from './dom.js';

/**
 * A button that runs one operator call, then says how it went (beside it, or in `report` when what
 * it changed is redrawn) and refreshes what it changed.
 * @param {string} label @param {() => Promise<unknown>} action @param {() => void} after
 * @param {Record<string, string>} [data] @param {HTMLElement} [report]
 */
function actionButton(label, action, after, data = {}, report = undefined) {
  const result = report ?? h('span', { class: 'action-result', role: 'status' });
  const button = h(
    'button',
    {
      type: 'button',
      ...Object.fromEntries(Object.entries(data).map(([k, v]) => [`data-${k}`, v])),
      onclick: async () => {
        /** @type {HTMLButtonElement} */ (button).disabled = true;
        try {
          await action();
          replace(result, notice(`${label}: done`, 'ok'));
          after();
        } catch (error) {
          replace(result, notice(`${label}: ${messageOf(error)}`, 'error'));
          /** @type {HTMLButtonElement} */ (button).disabled = false;
        }
      },
    },
    label,
  );
  return h('span', { class: 'action' }, button, result);
}

/** @param {any} letter @param {() => void} after @param {HTMLElement} [report] */
const deadLetterActions = (letter, after, report) => [
  actionButton('Redrive', () => api.redrive(letter.id), after, { action: 'redrive', id: letter.id }, report),
  ' ',
  actionButton(
    'Discard',
    async () => {
      if (!confirm(`Discard the dead letter of ${letter.consumer}? It is kept as a record, but not delivered.`))
        throw new Error('kept');
      await api.discard(letter.id);
    },
    after,
    { action: 'discard', id: letter.id },
    report,
  ),
];

/**
 * What an operator can do for one checkout in INTERVENTION, shown on its watch panel.
 * @param {{ id: string, mode: string }} checkout @param {() => void} after @param {HTMLElement} report
 */
export function operatorActions(checkout, after, report) {
  const box = h('div', { class: 'operator-actions', 'data-operator': 'yes' }, h('h4', {}, '◉ Operator'));
  if (checkout.mode === 'orchestration') {
    box.append(actionButton('Retry the saga', () => api.retrySaga(checkout.id), after, { action: 'retry' }, report));
    return box;
  }
  const letters = h('div', {}, 'Looking for its dead letters…');
  box.append(
    letters,
    actionButton('Resume', () => api.resumeCheckout(checkout.id), after, { action: 'resume' }, report),
  );
  api
    .deadLetters()
    .then((/** @type {any[]} */ all) => {
      const mine = all.filter((d) => d.message?.aggregateId === checkout.id);
      replace(
        letters,
        mine.length === 0
          ? h('p', {}, 'No dead letter: a message was lost or never answered; resume re-sends it.')
          : h(
              'ul',
              { class: 'plain' },
              mine.map((d) =>
                h(
                  'li',
                  { 'data-dead-letter': d.id },
                  `☠ ${d.consumer} gave up on ${d.type} after ${d.attempts} attempts: ${d.error} `,
                  deadLetterActions(d, after, report),
                ),
              ),
            ),
      );
    })
    .catch((/** @type {unknown} */ error) => replace(letters, notice(messageOf(error), 'error')));
  return box;
}

/** @type {import('./app.js').View} */
export function renderOperate(container, context) {
  container.append(h('h2', {}, 'Operate'));
  if (!context.adminConfigured) {
    container.append(
      notice(
        'Read-only: this app runs without ADMIN_TOKEN, so its /admin routes do not exist and there is nothing to operate here.',
      ),
    );
    return;
  }
  if (!context.operator) {
    container.append(
      notice(
        'Enter the operator token (top of the page) to see dead letters, sagas, invariants and fault rules. It is kept for this tab only.',
      ),
    );
    return;
  }
  const flash = h('div', { class: 'flash', role: 'status' });
  const sections = {
    deadLetters: h('section', { class: 'card', 'aria-labelledby': 'op-dead' }),
    sagas: h('section', { class: 'card', 'aria-labelledby': 'op-sagas' }),
    stalled: h('section', { class: 'card', 'aria-labelledby': 'op-stalled' }),
    invariants: h('section', { class: 'card', 'aria-labelledby': 'op-invariants' }),
    faults: h('section', { class: 'card', 'aria-labelledby': 'op-faults' }),
    participants: h('section', { class: 'card', 'aria-labelledby': 'op-participants' }),
  };
  container.append(
    h('p', {}, h('button', { type: 'button', onclick: () => load() }, '↻ Refresh')),
    flash,
    h('div', { class: 'cards' }, Object.values(sections)),
  );

  const link = (/** @type {string} */ id) => h('a', { href: `#watch/${id}` }, h('code', {}, id.slice(0, 8)));
  /** @param {HTMLElement} section @param {string} id @param {string} title @param {() => Promise<Array<Node | string>>} fill */
  async function show(section, id, title, fill) {
    replace(section, h('h3', { id }, title), h('p', {}, 'Loading…'));
    try {
      replace(section, h('h3', { id }, title), await fill());
    } catch (error) {
      replace(section, h('h3', { id }, title), notice(messageOf(error), 'error'));
    }
  }
  const empty = (/** @type {string} */ text) => [h('p', { class: 'empty' }, text)];

  function load() {
    void show(sections.deadLetters, 'op-dead', '☠ Dead letters', async () => {
      const letters = await api.deadLetters();
      if (letters.length === 0) return empty('None: every message was delivered.');
      return [
        h(
          'ul',
          { class: 'plain' },
          letters.map((/** @type {any} */ d) =>
            h(
              'li',
              { 'data-dead-letter': d.id },
              h('strong', {}, d.consumer),
              ` gave up on ${d.type} after ${d.attempts} attempts (${clock(d.lastFailedAt)}): ${d.error}. Checkout `,
              link(d.message?.aggregateId ?? ''),
              ' ',
              deadLetterActions(d, load, flash),
            ),
          ),
        ),
      ];
    });
    void show(sections.sagas, 'op-sagas', '◆ Sagas in INTERVENTION', async () => {
      const sagas = await api.sagasInIntervention();
      if (sagas.length === 0) return empty('None waits for a person.');
      return [
        h(
          'ul',
          { class: 'plain' },
          sagas.map((/** @type {any} */ s) =>
            h(
              'li',
              { 'data-saga': s.id },
              link(s.id),
              ` at ${s.current_step}${s.undoing ? ' (undoing)' : ''}: ${s.intervention ?? s.reason ?? ''} `,
              actionButton('Retry', () => api.retrySaga(s.id), load, { action: 'retry' }, flash),
            ),
          ),
        ),
      ];
    });
    void show(sections.stalled, 'op-stalled', '● Stalled choreographed checkouts', async () => {
      const { items } = await api.stalledCheckouts();
      if (items.length === 0) return empty('None in INTERVENTION.');
      return [
        h(
          'ul',
          { class: 'plain' },
          items.map((/** @type {any} */ c) =>
            h(
              'li',
              { 'data-stalled': c.id },
              link(c.id),
              ' ',
              statusBadge(c.status),
              ` at ${c.step}: ${c.failureReason ?? ''} `,
              actionButton('Resume', () => api.resumeCheckout(c.id), load, { action: 'resume' }, flash),
            ),
          ),
        ),
      ];
    });
    void show(sections.invariants, 'op-invariants', '⚖ Invariants', async () => {
      const report = await api.invariants();
      const violations = report.violations ?? [];
      return [
        violations.length === 0
          ? notice(`Hold: ${report.checked} checkouts checked, no violation.`, 'ok')
          : notice(`${violations.length} violated over ${report.checked} checkouts checked`, 'error'),
        violations.length
          ? h(
              'ul',
              { class: 'plain' },
              violations.map((/** @type {any} */ v) => h('li', {}, link(v.checkoutId), ` ${v.status}: ${v.rule}`)),
            )
          : null,
      ];
    });
    void show(sections.faults, 'op-faults', '⚡ Fault rules in force', async () => {
      if (!context.faults) return empty('Fault injection is off (FAULT_INJECTION=false).');
      const { rules } = await api.faults();
      return [
        rules.length === 0
          ? h('p', { class: 'empty', 'data-faults': 'none' }, 'None.')
          : h(
              'ul',
              { class: 'plain', 'data-faults': 'some' },
              rules.map((/** @type {any} */ r) =>
                h('li', {}, h('code', {}, r.point), ` ${r.action}, ${r.times ?? 'every'} time(s), ${r.hits} so far`),
              ),
            ),
        rules.length
          ? actionButton('Clear every rule', () => api.clearFaults(), load, { action: 'clear-faults' }, flash)
          : null,
        h('p', { class: 'hint' }, 'Set a rule with a checkout, on the Start view.'),
      ];
    });
    void show(sections.participants, 'op-participants', '⇄ Participants', async () => {
      const { participants } = await api.participants();
      return [
        h(
          'ul',
          { class: 'plain' },
          participants.map((/** @type {any} */ p) =>
            h(
              'li',
              { 'data-participant': p.name, 'data-state': participantState(p) },
              h('strong', {}, p.name),
              ' ',
              h('code', {}, p.url),
              `: ${describeParticipant(p)}`,
            ),
          ),
        ),
        h('p', { class: 'hint' }, "Faults are set in each participant's own lab (its /admin/faults)."),
      ];
    });
  }
  load();
}

/** @param {any} p a participant as /admin/participants shows it */
function participantState(p) {
  if (!p.answered) return 'silent';
  if (p.lab?.down) return 'down';
  return p.lab?.rules?.length ? 'faulty' : 'up';
}

/** @param {any} p */
function describeParticipant(p) {
  if (!p.answered) return `not answering (${p.problem})`;
  if (!p.lab) return 'up, without a lab';
  const faults = [
    ...(p.lab.down ? [`down (${p.lab.down.mode}) until ${clock(p.lab.down.until)}`] : []),
    ...p.lab.rules.map(
      (/** @type {any} */ r) =>
        `${r.fault} on ${r.operation ?? 'every operation'}${r.delayMs ? ` (${r.delayMs} ms)` : ''}, ${r.left} left`,
    ),
  ];
  return faults.length ? faults.join('; ') : 'up, no fault';
}
