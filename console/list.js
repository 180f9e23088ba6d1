// @ts-check
import { api, ApiError } from './api.js';
import { duration, h, messageOf, modeBadge, notice, replace, statusBadge } from './dom.js';

const STATUSES = ['PENDING', 'COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION'];
const PAGE = 20;

/** @type {import('./app.js').View} */
export function renderList(container) {
  const mode = h(
    'select',
    { id: 'list-mode', name: 'mode' },
    h('option', { value: '' }, 'any'),
    ['choreography', 'orchestration'].map((m) => h('option', { value: m }, m)),
  );
  const status = h(
    'select',
    { id: 'list-status', name: 'status' },
    h('option', { value: '' }, 'any'),
    STATUSES.map((s) => h('option', { value: s }, s)),
  );
  const stuck = h('input', { id: 'list-stuck', name: 'stuck', type: 'checkbox' });
  const body = h('div', { class: 'list-body' });
  const pager = h('p', { class: 'pager' });
  /** The cursors of the pages before this one, to go back. @type {Array<string | undefined>} */
  let cursors = [];
  /** @type {string | undefined} */
  let cursor;

  const filters = h(
    'form',
    {
      class: 'filters',
      onsubmit: (/** @type {SubmitEvent} */ e) => (e.preventDefault(), first()),
      onchange: () => first(),
    },
    h('div', { class: 'field' }, h('label', { for: 'list-mode' }, 'Mode'), mode),
    h('div', { class: 'field' }, h('label', { for: 'list-status' }, 'Status'), status),
    h('div', { class: 'field checkbox' }, stuck, h('label', { for: 'list-stuck' }, 'Only stuck (PENDING too long)')),
    h('button', { type: 'submit' }, '↻ Refresh'),
  );
  container.append(h('h2', {}, 'Recent checkouts'), filters, body, pager);

  function first() {
    cursors = [];
    cursor = undefined;
    void load();
  }

  async function load() {
    replace(body, h('p', {}, 'Loading…'));
    try {
      const page = await api.listCheckouts({
        mode: /** @type {HTMLSelectElement} */ (mode).value,
        status: /** @type {HTMLSelectElement} */ (status).value,
        stuck: /** @type {HTMLInputElement} */ (stuck).checked ? 'true' : undefined,
        limit: String(PAGE),
        cursor,
      });
      replace(body, page.items.length === 0 ? h('p', { class: 'empty' }, 'No checkout matches.') : table(page.items));
      replace(
        pager,
        cursors.length > 0
          ? h('button', { type: 'button', onclick: () => ((cursor = cursors.pop()), void load()) }, '← Newer')
          : null,
        ' ',
        page.nextCursor
          ? h(
              'button',
              {
                type: 'button',
                'data-next': 'yes',
                onclick: () => (cursors.push(cursor), (cursor = page.nextCursor), void load()),
              },
              'Older →',
            )
          : null,
      );
    } catch (error) {
      const text =
        error instanceof ApiError && error.status === 401
          ? 'Listing every checkout is the operator’s: enter the operator token.'
          : messageOf(error);
      replace(body, notice(text, 'error'));
    }
  }

  first();
}

/** @param {any[]} items */
function table(items) {
  const now = Date.now();
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'checkouts' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['started', 'checkout', 'mode', 'status', 'step', 'failure reason', 'duration'].map((c) =>
            h('th', { scope: 'col' }, c),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        items.map((c) => {
          const end = c.completedAt
            ? Date.parse(c.completedAt)
            : c.status === 'PENDING'
              ? now
              : Date.parse(c.updatedAt);
          return h(
            'tr',
            { 'data-checkout-id': c.id },
            h('td', {}, new Date(c.createdAt).toLocaleString([], { hour12: false })),
            h('td', {}, h('a', { href: `#watch/${c.id}` }, h('code', {}, c.id.slice(0, 8)))),
            h('td', {}, modeBadge(c.mode)),
            h('td', {}, statusBadge(c.status)),
            h('td', {}, c.step),
            h('td', {}, c.failureReason ?? ''),
            h(
              'td',
              { class: 'num' },
              `${c.status === 'PENDING' ? '… ' : ''}${duration(end - Date.parse(c.createdAt))}`,
            ),
          );
        }),
      ),
    ),
  );
}
