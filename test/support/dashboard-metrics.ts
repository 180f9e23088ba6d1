const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/** The metric names a PromQL expression reads (functions, labels, keywords and numbers left out). */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings
    .replace(/\b\d+(?:\.\d*)?(?:[eE][+-]?\d+)?\b/g, '0') // numbers (1e9 is not a metric e9)
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // ranges
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ''); // label lists
  const names = [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(?!\s*\()/g)]
    .filter((match) => !/[a-zA-Z0-9_:(]/.test(bare.slice(match.index + match[0].length).trimStart()[0] ?? ''))
    .map((match) => match[0])
    .filter((name) => !PROMQL_WORDS.has(name.toLowerCase()));
  return [...new Set(names)];
}

/** The label names a PromQL expression groups, joins or matches by (`by (mode)`, `{status="INTERVENTION"}`). */
export function labelNamesIn(expr: string): string[] {
  const bare = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const grouped = [...bare.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)].flatMap(
    ([, list]) => list.split(',').map((name) => name.trim()),
  );
  const matched = [...bare.matchAll(/\{([^}]*)\}/g)].flatMap(([, matchers]) =>
    [...matchers.matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)].map(([, name]) => name),
  );
  return [...new Set([...grouped, ...matched].filter((name) => name.length > 0))];
}

/** The label names of each metric's samples in a GET /metrics text (none for a metric without samples). */
export function exportedLabelNames(exposition: string): Map<string, Set<string>> {
  const labels = new Map<string, Set<string>>();
  for (const line of exposition.split('\n')) {
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}/.exec(line);
    if (!sample) continue;
    const names = labels.get(sample[1]) ?? new Set<string>();
    for (const [, name] of sample[2].matchAll(/([a-zA-Z_]\w*)="/g)) names.add(name);
    labels.set(sample[1], names);
  }
  return labels;
}

/** Every series name that GET /metrics can show: histograms as their _bucket, _sum and _count. */
export function exportedMetricNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, name, kind] = type;
      names.add(name);
      if (kind === 'histogram' || kind === 'summary') ['_bucket', '_sum', '_count'].forEach((s) => names.add(name + s));
    } else if (line && !line.startsWith('#')) {
      names.add(line.split(/[{\s]/)[0]);
    }
  }
  return names;
}

interface Panel {
  title?: string;
  targets?: Array<{ expr?: string }>;
  panels?: Panel[];
}

/** Each panel query's metric names that the app does not export, as `panel: name`. */
export function unknownDashboardMetrics(dashboard: { panels?: Panel[] }, exported: Set<string>): string[] {
  const panels = (dashboard.panels ?? []).flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  return panels.flatMap((panel) =>
    (panel.targets ?? []).flatMap((target) =>
      metricNamesIn(target.expr ?? '')
        .filter((name) => !exported.has(name))
        .map((name) => `${panel.title ?? '?'}: ${name}`),
    ),
  );
}
