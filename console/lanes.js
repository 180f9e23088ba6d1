// @ts-check
import { clock, duration, h, s } from './dom.js';

/**
 * A checkout's timeline as swimlanes: time runs down, one column per module. Entries from the
 * same moment share a row; long quiet gaps are shortened (and marked) so a watchdog's minutes do
 * not push everything off screen. Several timelines laid out together share one time axis.
 *
 * @typedef {{ at: string, kind: string, type: string | null, module: string | null, consumer: string | null,
 *   attempt: number | null, eventId: string | null, causationId: string | null, detail: any }} Entry
 * @typedef {{ id: string, mode: string, createdAt: string }} CheckoutHead
 * @typedef {{ entry: Entry, t: number, y: number, lane: number, panel: number }} Placed
 * @typedef {{ panels: Placed[][], height: number, breaks: Array<{ y: number, ms: number }> }} Layout
 */

export const LANES = ['checkout', 'identity', 'billing', 'content', 'notifications'];
/**
 * The checkout's steps, in order, and the compensations' names and messages: the app's table
 * (`GET /checkout-steps`), learned once at start, so that a step the app adds is drawn as one.
 * @typedef {{ name: string, command: string, done: string }} CompensationRow
 * @typedef {{ name: string, class: string, command: string, done: string, compensation: CompensationRow | null }} StepRow
 */
export const STEPS = /** @type {string[]} */ ([]);
export const COMPENSATIONS = /** @type {string[]} */ ([]);
/** The names and message types that are about undoing. */
const UNDOING = new Set();

/** @param {StepRow[]} steps */
export function learnSteps(steps) {
  STEPS.splice(0, STEPS.length, ...steps.map((step) => step.name));
  const compensations = steps.flatMap((step) => (step.compensation ? [step.compensation] : []));
  COMPENSATIONS.splice(0, COMPENSATIONS.length, ...compensations.map((c) => c.name));
  UNDOING.clear();
  for (const { name, command, done } of compensations) [name, command, done].forEach((word) => UNDOING.add(word));
}

/** Whether an entry is about undoing: a compensation's command, delivery or event, or a saga record of it. @param {Entry} entry */
const isUndoing = (entry) =>
  [entry.type, entry.consumer?.replace(/-command$/, ''), entry.detail?.step].some((word) => UNDOING.has(word));

const AXIS = 54;
const HEAD = 34;
const ROW = 16;
const PX_PER_MS = 0.12;
const MAX_GAP = 60;

/** The step a delivery performed, if it is one of the checkout's: consumers are named after their step. @param {Entry} entry */
export const stepOf = (entry) => {
  const name = entry.consumer?.replace(/-command$/, '');
  return name && STEPS.includes(name) ? name : undefined;
};

/** Commands and saga records are the sender's (the orchestrator's); deliveries are their consumer's. @param {Entry} entry */
function laneOf(entry) {
  if (entry.kind === 'command' || entry.kind === 'saga') return 0;
  const lane = LANES.indexOf(entry.module ?? '');
  return lane < 0 ? 0 : lane;
}

const shortType = (/** @type {string | null} */ type) => (type ?? '').replace(/^[a-z-]+\./, '').replace(/\.v\d+$/, '');
const shortConsumer = (/** @type {string | null} */ consumer) =>
  (consumer ?? '').replace(/^[a-z-]+\./, '').replace(/-command$/, '');

/** @param {Entry} entry */
function labelOf(entry) {
  switch (entry.kind) {
    case 'event':
      return shortType(entry.type);
    case 'command':
      return `→ ${shortType(entry.type)}`;
    case 'handled':
      return `✓ ${shortConsumer(entry.consumer)}`;
    case 'attempt-failed':
      return `✗ try ${entry.attempt ?? '?'} ${shortConsumer(entry.consumer)}`;
    case 'dead-lettered':
      return `☠ dead ${shortConsumer(entry.consumer)}`;
    case 'duplicate':
      return `= duplicate`;
    case 'saga': {
      const { from, to } = entry.detail ?? {};
      return from && to && from !== to ? `⇒ ${to}` : `saga ${entry.type ?? ''}`;
    }
    default:
      return `${entry.kind} ${shortType(entry.type)}`;
  }
}

/** @param {Entry} entry @param {number} t */
function describe(entry, t) {
  const parts = [`${clock(entry.at)} (+${duration(t)})`, entry.kind, entry.type ?? ''];
  if (entry.consumer) parts.push(`by ${entry.consumer}`);
  if (entry.attempt) parts.push(`attempt ${entry.attempt}`);
  if (entry.kind === 'saga' && entry.detail)
    parts.push(`${entry.detail.from} → ${entry.detail.to}, ${entry.detail.step ?? ''}`);
  else if (entry.detail?.error) parts.push(`error: ${entry.detail.error}`);
  return parts.filter(Boolean).join(' · ');
}

/**
 * Places every entry of every timeline on one shared vertical axis.
 * @param {Array<{ checkout: CheckoutHead, timeline: Entry[] }>} timelines
 * @returns {Layout}
 */
export function layout(timelines) {
  /** @type {Placed[]} */
  const all = timelines.flatMap(({ checkout, timeline }, panel) => {
    const origin = Math.min(Date.parse(checkout.createdAt), ...timeline.map((e) => Date.parse(e.at)));
    return timeline.map((entry) => ({ entry, t: Date.parse(entry.at) - origin, y: 0, lane: laneOf(entry), panel }));
  });
  all.sort((a, b) => a.t - b.t);
  const lastInLane = new Map();
  const breaks = [];
  let y = 0;
  let previous = 0;
  for (const placed of all) {
    const gap = (placed.t - previous) * PX_PER_MS;
    if (gap > MAX_GAP) breaks.push({ y: y + MAX_GAP / 2, ms: placed.t - previous });
    y += Math.min(gap, MAX_GAP);
    const key = `${placed.panel}/${placed.lane}`;
    if (lastInLane.has(key)) y = Math.max(y, lastInLane.get(key) + ROW);
    placed.y = y;
    lastInLane.set(key, y);
    previous = placed.t;
  }
  return { panels: timelines.map((_, i) => all.filter((p) => p.panel === i)), height: y, breaks };
}

/** The marker of one kind of entry: a shape per kind, so it does not rest on colour. @param {string} kind */
function shape(kind) {
  switch (kind) {
    case 'event':
      return s('circle', { r: 5 });
    case 'command':
      return s('rect', { x: -4.5, y: -4.5, width: 9, height: 9 });
    case 'handled':
      return s('circle', { r: 4.5, class: 'hollow' });
    case 'attempt-failed':
      return s('path', { d: 'M-4 -4 L4 4 M4 -4 L-4 4', class: 'stroke' });
    case 'dead-lettered':
      return s('path', { d: 'M0 -6 L6 5 L-6 5 Z' });
    case 'duplicate':
      return s('g', {}, s('circle', { r: 5, class: 'hollow' }), s('circle', { r: 2 }));
    case 'saga':
      return s('path', { d: 'M0 -6 L6 0 L0 6 L-6 0 Z' });
    default:
      return s('circle', { r: 3 });
  }
}

/**
 * One timeline's swimlanes, drawn on a layout shared with the others.
 * @param {Placed[]} placed @param {Layout} shared
 * @param {{ mode: string, key: string, lane?: number }} options `lane`: a column's width, narrower side by side
 */
export function drawLanes(placed, shared, { mode, key, lane: laneWidth = 100 }) {
  const labelChars = Math.floor((laneWidth - 22) / 6.2);
  const width = AXIS + laneWidth * LANES.length;
  const height = HEAD + shared.height + 28;
  const x = (/** @type {number} */ lane) => AXIS + lane * laneWidth + 12;
  const yOf = (/** @type {number} */ y) => HEAD + 14 + y;
  const arrow = `arrow-${key}`;
  const svg = s('svg', {
    class: 'lanes',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'group',
    'aria-label': `Swimlanes of the ${mode} checkout: time runs down, one column per module`,
  });
  svg.append(
    s(
      'defs',
      {},
      s(
        'marker',
        {
          id: arrow,
          viewBox: '0 0 8 8',
          refX: 7,
          refY: 4,
          markerWidth: 7,
          markerHeight: 7,
          orient: 'auto-start-reverse',
        },
        s('path', { d: 'M0 0 L8 4 L0 8 Z', class: 'arrowhead' }),
      ),
    ),
  );
  LANES.forEach((lane, i) => {
    const title = i === 0 && mode === 'orchestration' ? 'orchestrator' : lane;
    svg.append(
      s('rect', {
        x: AXIS + i * laneWidth,
        y: 0,
        width: laneWidth,
        height,
        class: `lane-bg lane-${i % 2 ? 'odd' : 'even'}`,
      }),
      s('text', { x: AXIS + i * laneWidth + 8, y: 20, class: 'lane-title' }, title),
      s('line', { x1: x(i), y1: HEAD, x2: x(i), y2: height, class: 'lane-line' }),
    );
  });
  svg.append(s('text', { x: 6, y: 20, class: 'lane-title' }, 'time'));

  // The axis: a tick where there is room for its label, and a mark where a long gap was shortened.
  let lastTick = -Infinity;
  for (const p of placed) {
    if (p.y - lastTick < 22) continue;
    lastTick = p.y;
    svg.append(s('text', { x: AXIS - 6, y: yOf(p.y) + 4, class: 'tick', 'text-anchor': 'end' }, `+${duration(p.t)}`));
  }
  for (const gap of shared.breaks) {
    svg.append(
      s('line', { x1: AXIS, y1: yOf(gap.y), x2: width, y2: yOf(gap.y), class: 'gap-line' }),
      s(
        'text',
        { x: width - 6, y: yOf(gap.y) - 3, class: 'gap-label', 'text-anchor': 'end' },
        `${duration(gap.ms)} later`,
      ),
    );
  }

  // Arrows first, so markers sit on top: causation (solid), delivery (dashed).
  const messages = new Map(
    placed.filter((p) => p.entry.kind === 'event' || p.entry.kind === 'command').map((p) => [p.entry.eventId, p]),
  );
  const deliveries = placed.filter(
    (p) => !messages.has(p.entry.eventId ?? '') || messages.get(p.entry.eventId ?? '') !== p,
  );
  const link = (/** @type {Placed} */ from, /** @type {Placed} */ to, /** @type {string} */ kind) => {
    const [x1, y1, x2, y2] = [x(from.lane), yOf(from.y), x(to.lane), yOf(to.y)];
    const mid = (y1 + y2) / 2;
    const bend = x1 === x2 ? -18 : 0;
    svg.append(
      s('path', {
        d: `M${x1} ${y1 + 5} C${x1 + bend} ${mid}, ${x2 + bend} ${mid}, ${x2} ${y2 - 6}`,
        class: `link link-${kind}`,
        'marker-end': `url(#${arrow})`,
      }),
    );
  };
  for (const p of placed) {
    if (p.entry.kind === 'event' || p.entry.kind === 'command') {
      const cause = p.entry.causationId;
      if (!cause) continue;
      const handled = deliveries.find(
        (d) => d.entry.eventId === cause && d.entry.kind === 'handled' && d.lane === p.lane && d.y <= p.y,
      );
      const source = handled ?? messages.get(cause);
      if (source && source !== p) link(source, p, 'causation');
    } else if (p.entry.eventId && messages.has(p.entry.eventId) && p.entry.kind !== 'saga') {
      link(/** @type {Placed} */ (messages.get(p.entry.eventId)), p, 'delivery');
    }
  }

  for (const p of placed) {
    const { entry } = p;
    const step = entry.kind === 'handled' ? stepOf(entry) : undefined;
    const compensation = isUndoing(entry);
    const label = labelOf(entry);
    const text = describe(entry, p.t);
    svg.append(
      s(
        'g',
        {
          class: `entry kind-${entry.kind}${compensation ? ' compensation' : ''}`,
          transform: `translate(${x(p.lane)} ${yOf(p.y)})`,
          tabindex: 0,
          role: 'img',
          'aria-label': text,
          'data-kind': entry.kind,
          'data-lane': LANES[p.lane],
          'data-step': step,
        },
        s('title', {}, text),
        compensation ? s('circle', { r: 8, class: 'compensation-ring' }) : null,
        shape(entry.kind),
        s('text', { x: 10, y: 4 }, label.length > labelChars ? `${label.slice(0, labelChars - 1)}…` : label),
      ),
    );
  }
  return svg;
}

/** The legend: the shape and the word for each kind of entry. */
export function legend() {
  const kinds = [
    ['event', 'event written'],
    ['command', 'command sent'],
    ['handled', 'handled'],
    ['attempt-failed', 'attempt failed, retried'],
    ['dead-lettered', 'dead letter'],
    ['duplicate', 'duplicate ignored'],
    ['saga', 'saga transition'],
  ];
  /** @param {string} kind @param {Element} mark */
  const icon = (kind, mark) =>
    s(
      'svg',
      { viewBox: '-9 -9 18 18', width: 18, height: 18, 'aria-hidden': 'true' },
      s('g', { class: `entry ${kind}` }, mark),
    );
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'Legend' },
    kinds.map(([kind, text]) => h('li', {}, icon(`kind-${kind}`, shape(kind)), text)),
    h('li', {}, icon('compensation', s('circle', { r: 8, class: 'compensation-ring' })), 'compensation'),
    h('li', {}, h('span', { class: 'legend-line causation', 'aria-hidden': 'true' }), 'caused'),
    h('li', {}, h('span', { class: 'legend-line delivery', 'aria-hidden': 'true' }), 'delivered'),
  );
}
