/**
 * A deployment's ceiling, from the parts: what N app processes, a Postgres of P cores and a Redis
 * Cluster of R masters can do together, from the CPU one checkout costs each part (as the checkout
 * benchmark measures it at the highest rate it sustains). Each part is a pool of cores that
 * checkouts draw on; the deployment goes as fast as its scarcest pool allows:
 *
 *   rate = min( N × 1000 / app ms,  P × 1000 / Postgres ms,  R × 1000 / Redis ms )
 *
 * An app process is one Node event loop, so it uses at most one core; Redis runs commands on one
 * thread, so a master is one core, and R masters share the work only as evenly as the queues'
 * hash tags spread it (`redisBusiestShare`, 1/R when even). Postgres is taken to scale with its
 * cores, which holds while its work is CPU and not a lock or the WAL's flush; past that the
 * figure is an upper bound.
 */

/** CPU ms one checkout costs each part. */
export interface PartCosts {
  appMs: number;
  postgresMs: number;
  redisMs: number;
}

export interface DeploymentShape {
  /** App processes, each on a core of its own. */
  apps: number;
  postgresCores: number;
  redisMasters: number;
  /** The share of Redis's work on its busiest master: 1 / redisMasters when the queues spread evenly. */
  redisBusiestShare?: number;
}

export type Part = 'app' | 'postgres' | 'redis';

export interface Ceiling {
  /** Checkouts a second the deployment can do: the lowest of its parts'. */
  rate: number;
  /** The part whose cores fill first. */
  limitedBy: Part;
  /** Checkouts a second each part alone would allow (Infinity for a part a checkout costs nothing). */
  byPart: Record<Part, number>;
}

/** Checkouts a second that `cores` cores allow at `ms` of CPU a checkout; a part that costs nothing is no limit. */
const allowed = (cores: number, ms: number): number => (ms > 0 ? (cores * 1_000) / ms : Infinity);

export function deploymentCeiling(costs: PartCosts, shape: DeploymentShape): Ceiling {
  for (const [name, value] of Object.entries(shape))
    if (!(Number(value) > 0)) throw new Error(`${name} must be positive, not ${value}`);
  const busiest = shape.redisBusiestShare ?? 1 / shape.redisMasters;
  if (busiest < 1 / shape.redisMasters || busiest > 1)
    throw new Error(`redisBusiestShare must lie between 1/${shape.redisMasters} and 1, not ${busiest}`);
  const byPart: Record<Part, number> = {
    app: allowed(shape.apps, costs.appMs),
    postgres: allowed(shape.postgresCores, costs.postgresMs),
    // The busiest master is full when the whole cluster has done 1 / busiest of its share.
    redis: allowed(1 / busiest, costs.redisMs),
  };
  const limitedBy = (Object.keys(byPart) as Part[]).reduce((low, part) => (byPart[part] < byPart[low] ? part : low));
  return { rate: byPart[limitedBy], limitedBy, byPart };
}

/** The cores each part needs for `rate` checkouts a second (app processes and masters are whole). */
export function coresFor(
  costs: PartCosts,
  rate: number,
): { apps: number; postgresCores: number; redisMasters: number } {
  const cores = (ms: number) => Math.max(1, Math.ceil((rate * Math.max(0, ms)) / 1_000));
  return { apps: cores(costs.appMs), postgresCores: cores(costs.postgresMs), redisMasters: cores(costs.redisMs) };
}

/** The shapes the benchmark prints: one machine's worth, then larger deployments. */
export const DEFAULT_SHAPES: DeploymentShape[] = [
  { apps: 1, postgresCores: 1, redisMasters: 1 },
  { apps: 2, postgresCores: 2, redisMasters: 1 },
  { apps: 4, postgresCores: 4, redisMasters: 3 },
  { apps: 8, postgresCores: 8, redisMasters: 3 },
  { apps: 16, postgresCores: 16, redisMasters: 6 },
];

const rateText = (rate: number) => (Number.isFinite(rate) ? rate.toFixed(0) : 'no limit');

/**
 * The lines the benchmark prints for one way of checking out: the costs and the formula with
 * them filled in, then a row per shape with each part's rate and the one that limits first.
 */
export function describeCeilings(label: string, costs: PartCosts, shapes = DEFAULT_SHAPES): string[] {
  const ms = (value: number) => value.toFixed(2);
  const lines = [
    `${label}: CPU a checkout app ${ms(costs.appMs)} ms, Postgres ${ms(costs.postgresMs)} ms, Redis ${ms(costs.redisMs)} ms;` +
      ` rate = min(N × 1000 / ${ms(costs.appMs)}, P × 1000 / ${ms(costs.postgresMs)}, R × 1000 / ${ms(costs.redisMs)})`,
  ];
  const rows = [
    ['N apps / P cores / R masters', 'app allows', 'Postgres allows', 'Redis allows', 'deployment', 'first full'],
  ];
  for (const shape of shapes) {
    const ceiling = deploymentCeiling(costs, shape);
    rows.push([
      `${shape.apps} / ${shape.postgresCores} / ${shape.redisMasters}`,
      rateText(ceiling.byPart.app),
      rateText(ceiling.byPart.postgres),
      rateText(ceiling.byPart.redis),
      `${rateText(ceiling.rate)}/s`,
      ceiling.limitedBy,
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows)
    lines.push('  ' + row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
  const target = 1_000;
  const needed = coresFor(costs, target);
  lines.push(
    `  for ${target}/s: ${needed.apps} app processes, ${needed.postgresCores} Postgres cores, ${needed.redisMasters} Redis masters (evenly spread)`,
  );
  return lines;
}
