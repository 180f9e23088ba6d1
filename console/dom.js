// @ts-check
/** A few helpers to build the page from data, without innerHTML (nothing from the API is parsed as markup). */

const SVG = 'http://www.w3.org/2000/svg';

/**
 * @typedef {Node | string | number | null | undefined | false} Child
 * @param {Element} element @param {Record<string, any>} attrs @param {Child[]} children
 */
function fill(element, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'object' ? child : String(child));
  }
  return element;
}

/** An HTML element. @param {string} tag @param {Record<string, any>} [attrs] @param {...Child | Child[]} children */
export const h = (tag, attrs = {}, ...children) =>
  /** @type {HTMLElement} */ (fill(document.createElement(tag), attrs, /** @type {Child[]} */ (children)));

/** An SVG element. @param {string} tag @param {Record<string, any>} [attrs] @param {...Child | Child[]} children */
export const s = (tag, attrs = {}, ...children) =>
  /** @type {SVGElement} */ (fill(document.createElementNS(SVG, tag), attrs, /** @type {Child[]} */ (children)));

/** @param {number} ms */
export function duration(ms) {
  if (!Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** @param {string} iso */
export const clock = (iso) => new Date(iso).toLocaleTimeString([], { hour12: false }) + `.${iso.slice(20, 23)}`;

/** Each status has an icon and a word as well as a colour, so it does not rest on colour alone. */
export const STATUS_ICONS = /** @type {Record<string, string>} */ ({
  PENDING: '…',
  COMPLETED: '✔',
  FAILED: '✖',
  REJECTED: '⊘',
  INTERVENTION: '⚠',
});

/** @param {string} status */
export const statusBadge = (status) =>
  h(
    'span',
    { class: `badge status-${status.toLowerCase()}`, 'data-status': status },
    `${STATUS_ICONS[status] ?? '•'} ${status}`,
  );

/** @param {string} mode */
export const modeBadge = (mode) =>
  h('span', { class: `badge mode-${mode}` }, mode === 'orchestration' ? '◆ orchestration' : '● choreography');

/** A short message in a live region. @param {string} text @param {'info' | 'error' | 'ok'} [kind] */
export const notice = (text, kind = 'info') =>
  h(
    'p',
    { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    kind === 'error' ? '✖ ' : kind === 'ok' ? '✔ ' : 'ℹ ',
    text,
  );

/** The message of anything thrown, for a person. @param {unknown} error */
export const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/** @param {Element} element @param {...Child | Child[]} children */
export function replace(element, ...children) {
  element.replaceChildren();
  fill(element, {}, /** @type {Child[]} */ (children));
  return element;
}
