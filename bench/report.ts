import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A benchmark's table on stdout: its columns aligned two spaces apart, each to the left or the
 * right as `align` says, column by column (`lrl`: a name, a figure, a note).
 */
export function printTable(rows: string[][], align: string): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) {
    const cells = row.map((cell, i) => (align[i] === 'r' ? cell.padStart(widths[i]) : cell.padEnd(widths[i])));
    console.log(cells.join('  ').trimEnd());
  }
}

/** Writes the figures as JSON to `file`, or to a new bench/results/<name>-<time>.json, and says where. */
export function writeFigures(name: string, figures: unknown, file?: string): void {
  const target =
    file ?? path.join(__dirname, 'results', `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, JSON.stringify(figures, null, 2));
  console.log(`\nFigures written to ${path.relative(process.cwd(), target)}`);
}
