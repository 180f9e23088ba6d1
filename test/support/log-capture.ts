import { Writable } from 'node:stream';

/** A pino destination that keeps every line, parsed, for assertions. */
export class LogCapture extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  private partial = '';

  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    const text = this.partial + chunk.toString('utf8');
    const pieces = text.split('\n');
    this.partial = pieces.pop() ?? '';
    for (const piece of pieces) {
      if (!piece.trim()) continue;
      try {
        this.lines.push(JSON.parse(piece) as Record<string, unknown>);
      } catch {
        this.lines.push({ msg: piece });
      }
    }
    if (process.env.TEST_LOGS === 'true') process.stdout.write(chunk);
    done();
  }

  matching(predicate: (line: Record<string, unknown>) => boolean): Record<string, unknown>[] {
    return this.lines.filter(predicate);
  }
}
