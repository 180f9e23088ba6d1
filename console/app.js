// @ts-check
import { adminToken, ApiError, checkAdminToken, checkoutSteps, features } from './api.js';
import { h, messageOf, notice, replace } from './dom.js';
import { learnSteps } from './lanes.js';
import { renderCompare } from './compare.js';
import { renderList } from './list.js';
import { renderOperate } from './operate.js';
import { renderStart } from './start.js';
import { renderWatch } from './watch.js';

/**
 * @typedef {{ points: Array<{point: string, actions: string[], description: string}>, rules: any[] }} FaultsView
 * @typedef {{
 *   adminConfigured: boolean,
 *   operator: boolean,
 *   faults: FaultsView | undefined,
 *   refreshAccess: () => Promise<void>,
 * }} Context
 * @typedef {(container: HTMLElement, context: Context, param: string) => (void | (() => void))} View
 */

/** @type {Record<string, View>} */
const VIEWS = {
  start: renderStart,
  watch: renderWatch,
  list: renderList,
  operate: renderOperate,
  compare: renderCompare,
};

/** @type {Context} */
const context = { adminConfigured: false, operator: false, faults: undefined, refreshAccess };
/** @type {(() => void) | void} */
let leaveView;

/** Learns what the app allows and whether this tab's token is the operator's; draws the access box. */
async function refreshAccess() {
  const offered = await features();
  context.adminConfigured = offered.admin;
  const token = adminToken.get();
  const check = offered.admin && token ? await checkAdminToken(token, offered.faultInjection) : { valid: false };
  if (token && !check.valid) adminToken.clear();
  context.operator = check.valid;
  context.faults = check.faults;
  drawAccess(
    token && !check.valid ? 'That token was refused (401): enter the ADMIN_TOKEN the app runs with.' : undefined,
  );
}

/** @param {string} [problem] */
function drawAccess(problem) {
  const box = /** @type {HTMLElement} */ (document.getElementById('access'));
  if (!context.adminConfigured) {
    replace(
      box,
      h(
        'p',
        { class: 'access-state', 'data-access': 'read-only' },
        '◌ Read-only: this app runs without ADMIN_TOKEN, so there is nothing to operate.',
      ),
    );
    return;
  }
  if (context.operator) {
    replace(
      box,
      h(
        'p',
        { class: 'access-state', 'data-access': 'operator' },
        '◉ Operator',
        context.faults ? ' · fault injection on' : '',
      ),
      h('button', { type: 'button', class: 'link', onclick: () => forget() }, 'Forget token'),
    );
    return;
  }
  const input = h('input', {
    id: 'admin-token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    required: true,
    placeholder: 'ADMIN_TOKEN',
  });
  replace(
    box,
    h(
      'form',
      {
        class: 'token-form',
        onsubmit: (/** @type {SubmitEvent} */ event) => useToken(event, /** @type {HTMLInputElement} */ (input)),
      },
      h('label', { for: 'admin-token' }, 'Operator token'),
      input,
      h('button', { type: 'submit' }, 'Use'),
      problem ? h('span', { class: 'field-error', role: 'alert' }, problem) : null,
    ),
  );
}

/** @param {SubmitEvent} event @param {HTMLInputElement} input */
async function useToken(event, input) {
  event.preventDefault();
  adminToken.set(input.value.trim());
  await refreshAccess();
  route();
}

async function forget() {
  adminToken.clear();
  await refreshAccess();
  route();
}

/** `#view/param`: the view to show, and what it shows (a checkout id, for Watch). */
function route() {
  const [name, ...rest] = location.hash.replace(/^#/, '').split('/');
  const view = VIEWS[name] ? name : 'start';
  for (const link of document.querySelectorAll('nav a')) {
    if (link.getAttribute('href') === `#${view}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (typeof leaveView === 'function') leaveView();
  const container = /** @type {HTMLElement} */ (document.getElementById('view'));
  container.replaceChildren();
  container.dataset.view = view;
  leaveView = VIEWS[view](container, context, decodeURIComponent(rest.join('/')));
}

window.addEventListener('hashchange', route);
// The checkout's steps come from the app, so that the page draws the ones it has.
Promise.all([checkoutSteps().then(learnSteps), refreshAccess()])
  .then(route)
  .catch((/** @type {unknown} */ error) => {
    const text = error instanceof ApiError ? `The API answered ${error.status}: ${error.message}` : messageOf(error);
    replace(/** @type {HTMLElement} */ (document.getElementById('view')), notice(text, 'error'));
  });
