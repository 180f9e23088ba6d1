import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { exportedLabelNames, exportedMetricNames, labelNamesIn, metricNamesIn } from '../support/dashboard-metrics';
import { TestApp } from '../support/test-app';

const root = path.resolve(__dirname, '../..');
const RULES = 'ops/prometheus/alerts.yml';
const RULE_TESTS = 'ops/prometheus/alerts.test.yml';

/**
 * Each rule of a rules file as written there: `- alert: Name`, then `expr:` on one line or, after
 * `|` or `>-`, on the lines indented below it.
 */
function alertRules(text: string): Array<{ alert: string; expr: string }> {
  const rules: Array<{ alert: string; expr: string }> = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const alert = /^\s*- alert:\s*(\S+)/.exec(line)?.[1];
    if (!alert) return;
    const exprAt = lines.findIndex((other, at) => at > index && /^\s*expr:/.test(other));
    const [, indent, value] = /^(\s*)expr:\s*(.*)$/.exec(lines[exprAt]) ?? [];
    const block = /^[|>]/.test(value ?? '');
    const below = lines.slice(exprAt + 1);
    const continued = below.slice(
      0,
      Math.max(
        0,
        below.findIndex((next) => next.search(/\S/) <= indent.length),
      ),
    );
    rules.push({ alert, expr: (block ? continued.join(' ') : value).trim() });
  });
  return rules;
}

/** promtool's exit status and what it printed; `missing` when it is not installed. */
function promtool(...args: string[]): { missing: boolean; status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: root, encoding: 'utf8' });
  const missing = (run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { missing, status: run.status, output: `${run.stdout ?? ''}${run.stderr ?? ''}` };
}

const PROMTOOL_MISSING =
  "promtool is not installed: it comes with Debian's prometheus package (apt-get install prometheus; .ci/run installs it)";

/** Issue 36, item 11: the alerts that call a person are checked as code is, and cannot name a series the app lost. */
describe('The alert rules (ops/prometheus/alerts.yml)', () => {
  const rules = alertRules(readFileSync(path.join(root, RULES), 'utf8'));

  it('when promtool checks them, then they are valid rules', () => {
    const check = promtool('check', 'rules', RULES);

    if (check.missing) throw new Error(PROMTOOL_MISSING);
    expect({ status: check.status, output: check.output }).toEqual({ status: 0, output: expect.any(String) });
  });

  it('when promtool runs their unit tests, then each rule fires, and stays quiet, where its tests say', () => {
    const test = promtool('test', 'rules', RULE_TESTS);

    if (test.missing) throw new Error(PROMTOOL_MISSING);
    expect({ status: test.status, output: test.output }).toEqual({
      status: 0,
      output: expect.stringContaining('SUCCESS'),
    });
  });

  it('when their unit tests are read, then every rule has a case where it fires and one where it does not', () => {
    const tests = readFileSync(path.join(root, RULE_TESTS), 'utf8');
    const untested = rules.flatMap(({ alert }) => [
      ...(new RegExp(`alertname: ${alert}\\s*\\n\\s*exp_alerts:\\s*\\n\\s*- exp_labels`).test(tests)
        ? []
        : [`${alert}: no case where it fires`]),
      ...(new RegExp(`alertname: ${alert}, exp_alerts: \\[\\]`).test(tests)
        ? []
        : [`${alert}: no case where it is quiet`]),
    ]);

    expect(rules.length).toBeGreaterThanOrEqual(8);
    expect(untested).toEqual([]);
  });

  describe('read against a live /metrics', () => {
    let app: TestApp;
    let exposition: string;

    beforeAll(async () => {
      app = await TestApp.start();
      await app.ready();
      exposition = (await app.http().get('/metrics').expect(200)).text;
    });
    afterAll(() => app.stop());

    it('when each rule is read, then every series it names is one the app exports, with the labels it uses', () => {
      const exported = exportedMetricNames(exposition);
      const labelled = exportedLabelNames(exposition);
      const unknown = rules.flatMap(({ alert, expr }) => {
        const names = metricNamesIn(expr);
        // The labels of the series that have samples now (a gauge with none yet, such as the dead
        // letters', shows only its name).
        const sampled = names.flatMap((name) => [...(labelled.get(name) ?? [])]);
        return [
          ...names.filter((name) => !exported.has(name)).map((name) => `${alert}: series ${name}`),
          ...(sampled.length === 0
            ? []
            : labelNamesIn(expr)
                .filter((label) => !sampled.includes(label))
                .map((label) => `${alert}: label ${label}`)),
        ];
      });

      expect(rules.flatMap(({ expr }) => metricNamesIn(expr)).length).toBeGreaterThanOrEqual(8);
      expect(unknown).toEqual([]);
    });

    it('when a rule names a series or a label the app does not export, then the check reports it', () => {
      expect(metricNamesIn('max by (mode) (checkout{status="INTERVENTION"}) > 0')).toEqual(['checkout']);
      expect(metricNamesIn('outbox_slot_retained_wal_bytes > 1e9 or up > 2.5')).toEqual([
        'outbox_slot_retained_wal_bytes',
        'up',
      ]);
      expect(exportedMetricNames(exposition).has('checkout')).toBe(false);
      expect(labelNamesIn('max by (mode) (checkouts{state="INTERVENTION"}) > 0')).toEqual(['mode', 'state']);
      expect(exportedLabelNames(exposition).get('checkouts')).toEqual(new Set(['mode', 'status']));
    });
  });
});
