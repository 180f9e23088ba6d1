// @ts-check
import { api, ApiError } from './api.js';
import { h, messageOf, notice, replace } from './dom.js';

/**
 * The README's failure table, as choices. `buyer: 'unknown'` starts with an id no one has;
 * `blocked` creates the buyer, then blocks them (an operator's call).
 */
export const SCENARIOS = [
  {
    id: 'happy',
    label: 'Happy path: a buyer from BR buys premium',
    country: 'BR',
    plan: 'premium',
    card: 'pm_card_ok',
    outcome: 'COMPLETED',
  },
  {
    id: 'unknown',
    label: 'Unknown buyer',
    country: 'PT',
    plan: 'basic',
    card: 'pm_card_ok',
    buyer: 'unknown',
    outcome: 'REJECTED, unknown-user',
  },
  {
    id: 'blocked',
    label: 'Blocked buyer',
    country: 'PT',
    plan: 'basic',
    card: 'pm_card_ok',
    buyer: 'blocked',
    outcome: 'REJECTED, user-blocked',
    operator: true,
  },
  {
    id: 'declined',
    label: 'Declined card',
    country: 'PT',
    plan: 'basic',
    card: 'pm_card_declined',
    outcome: 'FAILED, card-declined',
  },
  {
    id: 'unlicensed',
    label: 'Unlicensed country: a buyer from JP buys premium',
    country: 'JP',
    plan: 'premium',
    card: 'pm_card_ok',
    outcome: 'FAILED, not-licensed',
  },
  {
    id: 'capture-declined',
    label: 'Capture declined',
    country: 'PT',
    plan: 'basic',
    card: 'pm_card_capture_declined',
    outcome: 'FAILED, capture-declined',
  },
];

const MODES = [
  { value: 'choreography', label: 'Choreography' },
  { value: 'orchestration', label: 'Orchestration' },
  { value: 'both', label: 'Both, side by side' },
];

/** A labelled field with a place for the API's problems with it. @param {string} name @param {string} label @param {HTMLElement} input @param {string} [hint] */
function field(name, label, input, hint) {
  input.id = `start-${name}`;
  input.setAttribute('name', name);
  input.setAttribute('aria-describedby', `start-${name}-error`);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: input.id }, label),
    input,
    hint ? h('small', {}, hint) : null,
    h('span', { class: 'field-error', id: `start-${name}-error`, 'data-error-for': name, 'aria-live': 'polite' }),
  );
}

/** @type {import('./app.js').View} */
export function renderStart(container, context) {
  const scenarios = SCENARIOS.filter((s) => !s.operator || context.operator);
  const scenario = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      {},
      scenarios.map((s) => h('option', { value: s.id }, s.label)),
    )
  );
  const email = h('input', { type: 'text', inputmode: 'email', autocomplete: 'off' });
  const name = h('input', { type: 'text', value: 'Ana', autocomplete: 'off' });
  const country = h('input', { type: 'text', maxlength: 10, size: 4, autocomplete: 'off' });
  const plan = h('select', {});
  const outcome = h('p', { class: 'expected' });
  const status = h('div', { class: 'start-status' });

  const modes = h(
    'fieldset',
    { class: 'modes' },
    h('legend', {}, 'Mode'),
    MODES.map((m, i) =>
      h(
        'label',
        { class: 'choice' },
        h('input', { type: 'radio', name: 'mode', value: m.value, checked: i === 0 }),
        ` ${m.label}`,
      ),
    ),
  );

  const faultControls = context.operator && context.faults ? faultFieldset(context.faults) : null;

  const set = (/** @type {any} */ el, /** @type {string} */ value) => (el.value = value);
  const chosenScenario = () => SCENARIOS.find((s) => s.id === scenario.value) ?? SCENARIOS[0];
  const applyScenario = () => {
    const chosen = chosenScenario();
    set(email, `${chosen.id}-${crypto.randomUUID().slice(0, 8)}@example.com`);
    set(country, chosen.country);
    set(plan, chosen.plan);
    replace(outcome, 'Expected outcome: ', h('strong', {}, chosen.outcome));
    for (const el of [email, name, country]) /** @type {HTMLInputElement} */ (el).disabled = chosen.buyer === 'unknown';
  };
  scenario.addEventListener('change', applyScenario);

  const form = h(
    'form',
    { class: 'start-form', novalidate: true, onsubmit: (/** @type {SubmitEvent} */ e) => submit(e) },
    h('h2', {}, 'Start a checkout'),
    field('scenario', 'Scenario', scenario),
    outcome,
    h(
      'fieldset',
      { class: 'buyer' },
      h('legend', {}, 'Buyer'),
      field('name', 'Name', name),
      field('email', 'Email', email),
      field('country', 'Country', country, 'ISO code, such as BR'),
    ),
    field('planId', 'Plan', plan),
    modes,
    faultControls?.element,
    context.faults || !context.operator
      ? null
      : h('p', { class: 'hint' }, 'Fault injection is off in this app (FAULT_INJECTION=false).'),
    h('button', { type: 'submit', class: 'primary' }, '▶ Start'),
    status,
  );
  container.append(h('div', { class: 'start-layout' }, form, guide()));
  applyScenario();

  api
    .plans()
    .then(
      (
        /** @type {Array<{id: string, name: string, priceCents: number, currency: string, licensedCountries: string[] | null}>} */ plans,
      ) => {
        replace(
          plan,
          plans.map((p) =>
            h(
              'option',
              { value: p.id },
              `${p.name} (${(p.priceCents / 100).toFixed(2)} ${p.currency}${p.licensedCountries?.length ? `, ${p.licensedCountries.join(' ')} only` : ''})`,
            ),
          ),
        );
        // Only the plan: what the buyer typed meanwhile stays as typed.
        set(plan, chosenScenario().plan);
      },
    )
    .catch((/** @type {unknown} */ error) => status.append(notice(`Plans: ${messageOf(error)}`, 'error')));

  /** @param {SubmitEvent} event */
  async function submit(event) {
    event.preventDefault();
    for (const el of form.querySelectorAll('[data-error-for]')) el.textContent = '';
    const button = /** @type {HTMLButtonElement} */ (form.querySelector('button[type=submit]'));
    button.disabled = true;
    replace(status, notice('Starting…'));
    try {
      const ids = await start();
      if (ids) location.hash = `#watch/${ids.join(',')}`;
    } catch (error) {
      replace(status, notice(messageOf(error), 'error'));
    } finally {
      button.disabled = false;
    }
  }

  /** Shows each problem the API named next to its field; says whether any was placed. @param {ApiError} error @param {Record<string, string>} fields */
  function showFieldErrors(error, fields) {
    let placed = false;
    for (const [apiField, problems] of error.fields) {
      const local = Object.entries(fields).find(
        ([prefix]) => apiField === prefix || apiField.endsWith(`.${prefix}`),
      )?.[1];
      const slot = local && form.querySelector(`[data-error-for="${local}"]`);
      if (slot) {
        slot.textContent = problems.join('; ');
        placed = true;
      }
    }
    return placed;
  }

  async function start() {
    const chosen = SCENARIOS.find((s) => s.id === scenario.value) ?? SCENARIOS[0];
    const mode = /** @type {HTMLInputElement} */ (form.querySelector('input[name=mode]:checked')).value;
    let userId = crypto.randomUUID();
    if (chosen.buyer !== 'unknown') {
      try {
        const user = await api.createUser({
          email: /** @type {HTMLInputElement} */ (email).value,
          name: /** @type {HTMLInputElement} */ (name).value,
          country: /** @type {HTMLInputElement} */ (country).value,
        });
        userId = user.id;
      } catch (error) {
        if (error instanceof ApiError && showFieldErrors(error, { email: 'email', name: 'name', country: 'country' })) {
          replace(status, notice(`The buyer was not created: ${error.message}`, 'error'));
          return undefined;
        }
        throw error;
      }
      if (chosen.buyer === 'blocked') await api.blockUser(userId);
    }
    if (faultControls) {
      const rule = faultControls.rule();
      if (rule) {
        try {
          await api.setFaults([rule]);
        } catch (error) {
          if (
            error instanceof ApiError &&
            showFieldErrors(error, { point: 'point', action: 'action', times: 'times' })
          ) {
            replace(status, notice(`The fault rule was refused: ${error.message}`, 'error'));
            return undefined;
          }
          throw error;
        }
      }
    }
    const body = { userId, planId: /** @type {HTMLSelectElement} */ (plan).value, paymentMethod: chosen.card };
    const modes = mode === 'both' ? ['choreography', 'orchestration'] : [mode];
    const started = [];
    for (const m of modes) started.push((await api.startCheckout({ ...body, mode: m })).id);
    return started;
  }
}

/** Fault points that make sense for one checkout, with the actions each understands. @param {import('./app.js').FaultsView} faults */
function faultFieldset(faults) {
  const points = faults.points.filter((p) => /^(step|compensation|consumer):/.test(p.point));
  const point = h(
    'select',
    {},
    h('option', { value: '' }, 'none'),
    points.map((p) => h('option', { value: p.point, title: p.description }, p.point)),
  );
  const action = h('select', {});
  const times = h('input', { type: 'text', inputmode: 'numeric', size: 6, placeholder: 'every time' });
  const syncActions = () => {
    const chosen = points.find((p) => p.point === /** @type {HTMLSelectElement} */ (point).value);
    replace(
      action,
      (chosen?.actions ?? []).map((a) => h('option', { value: a }, a)),
    );
    /** @type {HTMLSelectElement} */ (action).disabled = !chosen;
  };
  point.addEventListener('change', syncActions);
  syncActions();
  const element = h(
    'fieldset',
    { class: 'fault' },
    h('legend', {}, 'Fault rule (optional)'),
    field('point', 'Point', point),
    field('action', 'Action', action),
    field('times', 'Times', times, 'empty: every occurrence'),
    h(
      'p',
      { class: 'hint' },
      'Replaces the rules in force (PUT /admin/faults). In both mode a rule counts occurrences across both checkouts.',
    ),
  );
  return {
    element,
    rule() {
      const chosen = /** @type {HTMLSelectElement} */ (point).value;
      if (!chosen) return undefined;
      const text = /** @type {HTMLInputElement} */ (times).value.trim();
      // Sent as typed: the API says what is wrong with it, next to the field.
      const count = text === '' ? undefined : /^-?\d+$/.test(text) ? Number(text) : text;
      return {
        point: chosen,
        action: /** @type {HTMLSelectElement} */ (action).value,
        ...(count === undefined ? {} : { times: /** @type {number} */ (count) }),
      };
    },
  };
}

/** What each scenario ends in, and why, beside the form: the README's failure table. */
function guide() {
  return h(
    'aside',
    { class: 'card guide', 'aria-labelledby': 'guide-title' },
    h('h3', { id: 'guide-title' }, 'What each scenario shows'),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'scenario'), h('th', { scope: 'col' }, 'ends'))),
      h(
        'tbody',
        {},
        SCENARIOS.map((s) => h('tr', {}, h('td', {}, s.label), h('td', {}, s.outcome))),
        h(
          'tr',
          {},
          h('td', {}, 'Happy path with the fault consumer:notifications.send-welcome-email, fail'),
          h('td', {}, 'INTERVENTION with a dead letter; redrive it (Operate) and it ends COMPLETED'),
        ),
      ),
    ),
    h(
      'p',
      { class: 'hint' },
      'Both, side by side: the same request once per mode, drawn on one time axis. A checkout that needs a person says so; an operator redrives, retries or resumes it from its page or from Operate.',
    ),
  );
}
