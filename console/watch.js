// @ts-check
import { api, ApiError } from './api.js';
import { clock, duration, h, messageOf, modeBadge, notice, replace, statusBadge } from './dom.js';
import { COMPENSATIONS, drawLanes, layout, legend, stepOf, STEPS } from './lanes.js';
import { operatorActions } from './operate.js';

/** Where each business refusal happens, so the step list can say which one said no. */
const REFUSED_AT = /** @type {Record<string, string>} */ ({
  'unknown-user': 'identity.verify-user',
  'user-blocked': 'identity.verify-user',
  'card-declined': 'billing.authorize-payment',
  'not-licensed': 'content.grant-access',
  'capture-declined': 'billing.capture-payment',
});

/**
 * @typedef {{ id: string, userId: string, planId: string, mode: string, status: string, step: string,
 *   failureReason: string | null, correlationId: string, createdAt: string, updatedAt: string, completedAt: string | null }} Checkout
 */

/** @type {import('./app.js').View} */
export function renderWatch(container, context, param) {
  const ids = param.split(',').filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  if (ids.length === 0) {
    container.append(pickForm());
    return;
  }
  const live = h('p', { class: 'live', role: 'status' });
  const flash = h('div', { class: 'flash', role: 'status' });
  const panels = h('div', { class: ids.length > 1 ? 'panels side-by-side' : 'panels' });
  container.append(
    h('h2', {}, ids.length > 1 ? 'Watch: both modes, side by side on one time axis' : 'Watch a checkout'),
    live,
    flash,
    legend(),
    panels,
  );

  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let drawn = '';
  const openDetails = new Set();

  async function poll() {
    timer = undefined;
    try {
      const loaded = await Promise.all(
        ids.map(async (id) => ({
          checkout: /** @type {Checkout} */ (await api.checkout(id)),
          timeline: await api.timeline(id),
        })),
      );
      if (stopped) return;
      const fingerprint = JSON.stringify(loaded);
      if (fingerprint !== drawn) {
        drawn = fingerprint;
        draw(loaded);
      }
      const statuses = loaded.map((l) => l.checkout.status);
      const every = statuses.includes('PENDING') ? 600 : statuses.includes('INTERVENTION') ? 2000 : undefined;
      replace(
        live,
        every
          ? `● Live: refreshing every ${duration(every)}${statuses.includes('PENDING') ? '' : ' (waiting for a person)'}`
          : '■ Final: nothing more will happen to ' + (ids.length > 1 ? 'these checkouts.' : 'this checkout.'),
      );
      live.dataset.live = every ? 'yes' : 'no';
      if (every) timer = setTimeout(poll, every);
    } catch (error) {
      if (stopped) return;
      const text =
        error instanceof ApiError && error.status === 404
          ? 'No such checkout (or not yours to read).'
          : messageOf(error);
      replace(live, notice(text, 'error'));
      timer = setTimeout(poll, 3000);
    }
  }

  /** @param {Array<{ checkout: Checkout, timeline: any[] }>} loaded */
  function draw(loaded) {
    for (const details of panels.querySelectorAll('details[data-key]')) {
      const key = /** @type {HTMLElement} */ (details).dataset.key;
      if (/** @type {HTMLDetailsElement} */ (details).open) openDetails.add(key);
      else openDetails.delete(key);
    }
    const shared = layout(loaded);
    replace(
      panels,
      loaded.map(({ checkout, timeline }, i) =>
        h(
          'section',
          {
            class: 'panel',
            'data-checkout-id': checkout.id,
            'data-mode': checkout.mode,
            'data-status': checkout.status,
            'aria-label': `${checkout.mode} checkout`,
          },
          head(checkout),
          stepList(checkout, timeline),
          context.operator && checkout.status === 'INTERVENTION'
            ? operatorActions(checkout, () => void refreshNow(), flash)
            : null,
          h(
            'div',
            { class: 'lanes-scroll', tabindex: 0, 'aria-label': 'Swimlanes (scrolls sideways)' },
            drawLanes(shared.panels[i], shared, {
              mode: checkout.mode,
              key: String(i),
              lane: loaded.length > 1 ? 100 : 150,
            }),
          ),
          entryTable(checkout, timeline, openDetails.has(checkout.id)),
        ),
      ),
    );
  }

  function refreshNow() {
    if (timer) clearTimeout(timer);
    return poll();
  }

  void poll();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/** Correlation id on top; status, step and failure reason always in view. @param {Checkout} checkout */
function head(checkout) {
  const end = checkout.completedAt ?? (checkout.status === 'PENDING' ? new Date().toISOString() : checkout.updatedAt);
  return h(
    'header',
    { class: 'panel-head' },
    h('p', { class: 'correlation' }, 'correlation id ', h('code', {}, checkout.correlationId)),
    h('p', { class: 'badges' }, modeBadge(checkout.mode), ' ', statusBadge(checkout.status)),
    h(
      'dl',
      { class: 'facts' },
      h('div', {}, h('dt', {}, 'step'), h('dd', { 'data-field': 'step' }, checkout.step)),
      h(
        'div',
        {},
        h('dt', {}, 'failure reason'),
        h('dd', { 'data-field': 'failureReason' }, checkout.failureReason ?? '—'),
      ),
      h('div', {}, h('dt', {}, 'duration'), h('dd', {}, duration(Date.parse(end) - Date.parse(checkout.createdAt)))),
      h('div', {}, h('dt', {}, 'checkout'), h('dd', {}, h('code', {}, checkout.id))),
    ),
  );
}

/** The checkout's steps, each with a word and an icon for where it stands. @param {Checkout} checkout @param {any[]} timeline */
function stepList(checkout, timeline) {
  const handled = new Set(timeline.map((e) => (e.kind === 'handled' ? stepOf(e) : undefined)).filter(Boolean));
  const refusedAt = checkout.failureReason ? REFUSED_AT[checkout.failureReason] : undefined;
  const compensations = [
    ...new Set(
      timeline
        .map((e) => (e.kind === 'handled' ? e.consumer?.replace(/-command$/, '') : undefined))
        .filter((name) => COMPENSATIONS.includes(name)),
    ),
  ];
  const state = (/** @type {string} */ step) => {
    if (step === refusedAt) return ['refused', '✖ refused'];
    if (checkout.status === 'INTERVENTION' && step === checkout.step) return ['stopped', '⚠ waits for a person'];
    if (handled.has(step)) return ['done', '✔ done'];
    if (checkout.status === 'PENDING' && step === checkout.step) return ['running', '… running'];
    return ['not-reached', '· not reached'];
  };
  return h(
    'ol',
    { class: 'steps', 'aria-label': 'Steps' },
    STEPS.map((step) => {
      const [kind, text] = state(step);
      return h(
        'li',
        { class: `step step-${kind}`, 'data-step': step, 'data-state': kind },
        h('span', { class: 'step-name' }, step),
        h('span', { class: 'step-state' }, text),
      );
    }),
    compensations.map((c) =>
      h(
        'li',
        { class: 'step step-compensated', 'data-step': c, 'data-state': 'compensated' },
        h('span', { class: 'step-name' }, c),
        h('span', { class: 'step-state' }, '↺ compensation'),
      ),
    ),
  );
}

/** Everything, as a table: the same entries, readable by keyboard and screen reader. @param {Checkout} checkout @param {any[]} timeline @param {boolean} open */
function entryTable(checkout, timeline, open) {
  return h(
    'details',
    { 'data-key': checkout.id, open },
    h('summary', {}, `All ${timeline.length} entries`),
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { class: 'entries' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['time', 'kind', 'type', 'module', 'consumer', 'attempt', 'detail'].map((c) =>
              h('th', { scope: 'col' }, c),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          timeline.map((e) =>
            h(
              'tr',
              {},
              h('td', {}, clock(e.at)),
              h('td', {}, e.kind),
              h('td', {}, e.type ?? ''),
              h('td', {}, e.module ?? ''),
              h('td', {}, e.consumer ?? ''),
              h('td', {}, e.attempt ?? ''),
              h('td', { class: 'detail' }, e.detail ? JSON.stringify(e.detail).slice(0, 160) : ''),
            ),
          ),
        ),
      ),
    ),
  );
}

function pickForm() {
  const input = h('input', {
    id: 'watch-id',
    name: 'id',
    type: 'text',
    size: 38,
    required: true,
    autocomplete: 'off',
    placeholder: '00000000-0000-0000-0000-000000000000',
  });
  return h(
    'form',
    {
      class: 'pick',
      onsubmit: (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        location.hash = `#watch/${/** @type {HTMLInputElement} */ (input).value.trim()}`;
      },
    },
    h('h2', {}, 'Watch a checkout'),
    h('label', { for: 'watch-id' }, 'Checkout id (two, comma-separated, side by side)'),
    input,
    h('button', { type: 'submit' }, 'Watch'),
    h('p', {}, 'Or start one, or pick one from the ', h('a', { href: '#list' }, 'list'), '.'),
  );
}
