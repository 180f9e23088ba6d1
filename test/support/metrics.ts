import { MetricsRegistry } from '../../src/infra/metrics/metrics.registry';
import type { TestApp } from './test-app';

/** The current value of one series of a metric of the app (0 when it has none yet). */
export async function metricValue(app: TestApp, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = app.get(MetricsRegistry).getSingleMetric(name);
  if (!metric) throw new Error(`No metric ${name}`);
  const { values } = await metric.get();
  const matching = (values as Array<(typeof values)[number] & { metricName?: string }>).filter(
    (value) =>
      !String(value.metricName ?? name).endsWith('_bucket') &&
      Object.entries(labels).every(([key, wanted]) => String(value.labels[key]) === wanted),
  );
  return matching.reduce((sum, value) => sum + value.value, 0);
}
