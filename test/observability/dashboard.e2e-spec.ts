import { readFileSync } from 'node:fs';
import path from 'node:path';
import { exportedMetricNames, metricNamesIn, unknownDashboardMetrics } from '../support/dashboard-metrics';
import { TestApp } from '../support/test-app';

const dashboardFile = path.resolve(__dirname, '../../ops/grafana/dashboards/checkout.json');
const readDashboard = () =>
  JSON.parse(readFileSync(dashboardFile, 'utf8')) as {
    panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
  };

/** The provisioned Grafana dashboard cannot rot silently: it only queries what the app exports. */
describe('The Grafana dashboard', () => {
  let app: TestApp;
  let exported: Set<string>;

  beforeAll(async () => {
    app = await TestApp.start();
    await app.ready();
    exported = exportedMetricNames((await app.http().get('/metrics').expect(200)).text);
  });
  afterAll(() => app.stop());

  it('when its queries are read, then every metric they name is one that /metrics of the app exports', () => {
    const dashboard = readDashboard();
    const named = dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricNamesIn(target.expr)));

    expect(named.length).toBeGreaterThanOrEqual(10);
    expect(unknownDashboardMetrics(dashboard, exported)).toEqual([]);
  });

  it('when a query names a metric the app does not export, then the check reports it', () => {
    const dashboard = readDashboard();
    dashboard.panels[0].targets[0].expr = 'sum by (mode) (rate(checkout_durations_seconds_bucket{mode="x"}[5m]))';

    expect(unknownDashboardMetrics(dashboard, exported)).toEqual([
      `${dashboard.panels[0].title}: checkout_durations_seconds_bucket`,
    ]);
  });

  it('when PromQL is parsed, then functions, labels, keywords and numbers are not taken for metric names', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, sum by (consumer, le) (rate(outbox_handler_duration_seconds_bucket[5m])))',
      ),
    ).toEqual(['outbox_handler_duration_seconds_bucket']);
    expect(
      metricNamesIn('sum without (state) (queue_jobs{state="waiting", queue=~"b.*"}) / on (queue) sagas > 0'),
    ).toEqual(['queue_jobs', 'sagas']);
  });
});
