// @ts-check
import { api, ApiError } from './api.js';
import { duration, h, messageOf, notice, s } from './dom.js';

const MODES = ['choreography', 'orchestration'];
/** The mode is always named in words (and shape) beside its colour. */
const MODE_MARK = /** @type {Record<string, string>} */ ({ choreography: '●', orchestration: '◆' });
const FAULT_CLASSES = /** @type {Record<string, string>} */ ({
  fail: 'a step answers fail',
  'timeout-before': 'a step times out before its work',
  'timeout-after': 'a step times out after its work',
  'compensation-fail': 'a compensation fails once',
});
const WIDTH = 480;
const LEFT = 118;

/** @type {import('./app.js').View} */
export function renderCompare(container) {
  container.append(h('h2', {}, 'Compare the modes'), h('p', {}, 'Loading the latest `npm run compare`…'));
  api
    .comparison()
    .then(({ file, comparison }) => {
      container.replaceChildren(h('h2', {}, 'Compare the modes'), ...draw(file, comparison));
    })
    .catch((/** @type {unknown} */ error) => {
      const text =
        error instanceof ApiError && error.status === 404
          ? `${error.message}. It writes bench/results/compare-*.json, which this view draws.`
          : messageOf(error);
      container.replaceChildren(
        h('h2', {}, 'Compare the modes'),
        notice(text, error instanceof ApiError && error.status === 404 ? 'info' : 'error'),
      );
    });
}

/** @param {string} file @param {any} data */
function draw(file, data) {
  const reports = data.reports ?? {};
  const m = data.machine;
  return [
    h(
      'p',
      { class: 'measured', 'data-measured': data.measuredAt ?? '' },
      'Measured ',
      data.measuredAt
        ? h('time', { datetime: data.measuredAt }, new Date(data.measuredAt).toLocaleString([], { hour12: false }))
        : '(date not recorded)',
      m
        ? // The machine's name is the operator's to read only; the public answer leaves it out.
          ` on ${m.hostname ? `${m.hostname}: ` : 'a machine of '}${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, ${m.platform ?? '?'}, Node ${m.node}`
        : ' (machine not recorded)',
      `. ${data.repeat ?? '?'} of each business scenario per mode; file ${file}.`,
    ),
    h(
      'div',
      { class: 'cards' },
      card('Duration of business checkouts', durationChart(reports)),
      card('Cost per checkout', costChart(reports)),
      card('Recovery time per fault class', recoveryChart(reports)),
    ),
    outcomesTable(reports),
  ];
}

/** @param {string} title @param {Element} chart */
const card = (title, chart) => h('section', { class: 'card chart-card' }, h('h3', {}, title), chart);

const chartSvg = (/** @type {number} */ height, /** @type {string} */ label) =>
  s('svg', { class: 'chart', viewBox: `0 0 ${WIDTH} ${height}`, role: 'img', 'aria-label': label });

/** Bars, one row per mode: a histogram of every business checkout's duration, p50/p95/p99 marked. @param {any} reports */
function durationChart(reports) {
  const rows = MODES.filter((mode) => reports[mode]);
  const all = rows.flatMap((mode) => reports[mode].business.durationsMs ?? [reports[mode].business.p99]);
  const max = Math.max(1, ...all);
  const bins = 16;
  const rowHeight = 74;
  const plot = WIDTH - LEFT - 10;
  const xOf = (/** @type {number} */ ms) => LEFT + (ms / max) * plot;
  const svg = chartSvg(rows.length * rowHeight + 30, 'Duration distribution per mode, with p50, p95 and p99');
  rows.forEach((mode, i) => {
    const top = i * rowHeight + 8;
    const { durationsMs = [], p50, p95, p99 } = reports[mode].business;
    const counts = Array.from({ length: bins }, () => 0);
    for (const ms of durationsMs) counts[Math.min(bins - 1, Math.floor((ms / max) * bins))] += 1;
    const highest = Math.max(1, ...counts);
    svg.append(s('text', { x: 4, y: top + 30, class: `series-label mode-${mode}` }, `${MODE_MARK[mode]} ${mode}`));
    svg.append(s('text', { x: 4, y: top + 46, class: 'small' }, `${durationsMs.length} checkouts`));
    counts.forEach((count, b) => {
      const height = (count / highest) * 44;
      if (count === 0) return;
      svg.append(
        s(
          'rect',
          {
            x: LEFT + (b * plot) / bins + 1,
            y: top + 48 - height,
            width: plot / bins - 2,
            height,
            class: `bar mode-${mode}`,
          },
          s('title', {}, `${count} between ${duration((b * max) / bins)} and ${duration(((b + 1) * max) / bins)}`),
        ),
      );
    });
    for (const [name, ms] of [
      ['50', p50],
      ['95', p95],
      ['99', p99],
    ]) {
      const x = xOf(Number(ms));
      svg.append(
        s('line', { x1: x, y1: top + 2, x2: x, y2: top + 50, class: 'percentile' }),
        s('text', { x: x + 2, y: top + 6, class: 'tiny' }, name),
      );
    }
    svg.append(
      s(
        'text',
        { x: LEFT, y: top + 62, class: 'small' },
        `p50 ${duration(p50)} · p95 ${duration(p95)} · p99 ${duration(p99)}`,
      ),
    );
  });
  axis(svg, rows.length * rowHeight + 14, max, xOf);
  return svg;
}

/** @param {SVGElement} svg @param {number} y @param {number} max @param {(ms: number) => number} xOf */
function axis(svg, y, max, xOf) {
  svg.append(s('line', { x1: LEFT, y1: y, x2: WIDTH - 10, y2: y, class: 'axis' }));
  for (let k = 0; k <= 4; k += 1) {
    const ms = (max * k) / 4;
    svg.append(
      s(
        'text',
        { x: xOf(ms), y: y + 13, class: 'small', 'text-anchor': k === 0 ? 'start' : k === 4 ? 'end' : 'middle' },
        duration(ms),
      ),
    );
  }
}

/** Horizontal bars with their value written on them. @param {any} reports */
function costChart(reports) {
  const measures = [
    ['messages', (/** @type {any} */ r) => r.business.messagesPerCheckout],
    ['Postgres transactions', (/** @type {any} */ r) => r.business.transactionsPerCheckout],
  ];
  const rows = MODES.filter((mode) => reports[mode]);
  const svg = chartSvg(
    measures.length * (rows.length * 24 + 26) + 4,
    'Messages and Postgres transactions per checkout, per mode',
  );
  let y = 4;
  for (const [name, value] of measures) {
    const get = /** @type {(r: any) => number} */ (value);
    const max = Math.max(1, ...rows.map((mode) => get(reports[mode])));
    svg.append(s('text', { x: 4, y: y + 12, class: 'series-label' }, `${name} per checkout`));
    y += 18;
    for (const mode of rows) {
      const v = get(reports[mode]);
      const width = Math.max(2, (v / max) * (WIDTH - LEFT - 60));
      svg.append(
        s('text', { x: 4, y: y + 13, class: `small mode-${mode}` }, `${MODE_MARK[mode]} ${mode}`),
        s('rect', { x: LEFT, y: y + 2, width, height: 16, class: `bar mode-${mode}` }),
        s('text', { x: LEFT + width + 6, y: y + 14, class: 'value' }, v.toFixed(1)),
      );
      y += 24;
    }
    y += 8;
  }
  return svg;
}

/** Per fault class and mode: the median time from start to the end state, and which end state. @param {any} reports */
function recoveryChart(reports) {
  const rows = MODES.filter((mode) => reports[mode]);
  /** @type {Map<string, Record<string, { ms: number[], statuses: string[] }>>} */
  const classes = new Map();
  for (const mode of rows) {
    for (const [name, scenario] of Object.entries(reports[mode].scenarios ?? {})) {
      const fault =
        scenario.fault ??
        / (fail|timeout-before|timeout-after)$/.exec(name)?.[1] ??
        (/fails once$/.test(name) ? 'compensation-fail' : undefined);
      if (!fault) continue;
      const byMode = classes.get(fault) ?? {};
      byMode[mode] ??= { ms: [], statuses: [] };
      byMode[mode].ms.push(scenario.durationMs);
      byMode[mode].statuses.push(scenario.status);
      classes.set(fault, byMode);
    }
  }
  if (classes.size === 0) return h('p', { class: 'empty' }, 'This comparison has no fault scenarios.');
  const median = (/** @type {number[]} */ values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const max = Math.max(1, ...[...classes.values()].flatMap((byMode) => Object.values(byMode).map((v) => median(v.ms))));
  const svg = chartSvg(
    classes.size * (rows.length * 24 + 26) + 4,
    'Median recovery time per fault class and mode, with the outcomes',
  );
  let y = 4;
  for (const [fault, byMode] of classes) {
    svg.append(s('text', { x: 4, y: y + 12, class: 'series-label' }, FAULT_CLASSES[fault] ?? fault));
    y += 18;
    for (const mode of rows) {
      const entry = byMode[mode];
      if (!entry) continue;
      const ms = median(entry.ms);
      const width = Math.max(2, (ms / max) * (WIDTH - LEFT - 150));
      const outcomes = Object.entries(
        entry.statuses.reduce(
          (acc, st) => ({ ...acc, [st]: (acc[st] ?? 0) + 1 }),
          /** @type {Record<string, number>} */ ({}),
        ),
      )
        .map(([st, n]) => `${st}${n > 1 ? ` ×${n}` : ''}`)
        .join(', ');
      svg.append(
        s('text', { x: 4, y: y + 13, class: `small mode-${mode}` }, `${MODE_MARK[mode]} ${mode}`),
        s(
          'rect',
          { x: LEFT, y: y + 2, width, height: 16, class: `bar mode-${mode}` },
          s('title', {}, `${entry.ms.length} scenario(s): ${entry.ms.map((v) => duration(v)).join(', ')}`),
        ),
        s('text', { x: LEFT + width + 6, y: y + 14, class: 'value' }, `${duration(ms)} · ${outcomes}`),
      );
      y += 24;
    }
    y += 8;
  }
  return svg;
}

/** The figures as a table as well, for readers who prefer numbers. @param {any} reports */
function outcomesTable(reports) {
  const rows = MODES.filter((mode) => reports[mode]);
  const line = (/** @type {string} */ label, /** @type {(r: any) => string} */ value) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, label),
      rows.map((mode) => h('td', {}, value(reports[mode]))),
    );
  return h(
    'details',
    {},
    h('summary', {}, 'The figures as a table'),
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, ''),
            rows.map((mode) => h('th', { scope: 'col' }, `${MODE_MARK[mode]} ${mode}`)),
          ),
        ),
        h(
          'tbody',
          {},
          ['COMPLETED', 'FAILED', 'REJECTED', 'INTERVENTION', 'PENDING'].map((st) =>
            line(`checkouts ${st}`, (r) => String(r.outcomes.business[st] ?? 0)),
          ),
          line('duration p50 / p95 / p99', (r) =>
            [r.business.p50, r.business.p95, r.business.p99].map((v) => duration(v)).join(' / '),
          ),
          line('messages per checkout', (r) => r.business.messagesPerCheckout.toFixed(1)),
          line('Postgres transactions per checkout', (r) => r.business.transactionsPerCheckout.toFixed(1)),
          line('invariants', (r) =>
            r.invariants?.violations === 0
              ? `hold (${r.invariants.checked} checked)`
              : `${r.invariants?.violations} violated`,
          ),
        ),
      ),
    ),
  );
}
