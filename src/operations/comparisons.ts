import { Inject, Injectable } from '@nestjs/common';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { operationsConfig, type OperationsConfig } from './operations.config';

/** `npm run compare` names its files by the time it ran, so the newest sorts last. */
const COMPARE_FILE = /^compare-[0-9TZ-]+\.json$/;

/** The figures `npm run compare` wrote last, read from disk as they are. */
@Injectable()
export class Comparisons {
  constructor(@Inject(operationsConfig.KEY) private readonly config: OperationsConfig) {}

  /** The newest comparison and its file name, or undefined when none was run here. */
  async latest(): Promise<{ file: string; comparison: unknown } | undefined> {
    const names = await readdir(this.config.compareResultsDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    const newest = names
      .filter((name) => COMPARE_FILE.test(name))
      .sort()
      .pop();
    if (!newest) return undefined;
    const text = await readFile(path.join(this.config.compareResultsDir, newest), 'utf8');
    return { file: newest, comparison: JSON.parse(text) as unknown };
  }
}
