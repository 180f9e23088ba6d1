/**
 * What a long benchmark is doing, as it goes: one line per phase, and a counter for the long ones.
 * All of it on stderr, so that stdout carries only the results (`npm run bench > results.txt`).
 */
const startedAt = Date.now();
const elapsed = () => `${((Date.now() - startedAt) / 1_000).toFixed(1).padStart(6)} s`;
const onTerminal = process.stderr.isTTY === true;

export function phase(text: string): void {
  process.stderr.write(`${onTerminal ? '\r\x1b[K' : ''}[${elapsed()}] ${text}\n`);
}

/**
 * Shows `done()` out of `total` while a phase runs: a line rewritten every second on a terminal,
 * a new line every five seconds elsewhere (a CI log). Returns the function that stops it.
 */
export function track(label: string, total: number, done: () => number): () => void {
  const show = () => {
    const count = Math.min(done(), total);
    const line = `[${elapsed()}] ${label}: ${count.toLocaleString('en-US')} / ${total.toLocaleString('en-US')}`;
    process.stderr.write(onTerminal ? `\r\x1b[K${line}` : `${line}\n`);
  };
  const timer = setInterval(show, onTerminal ? 1_000 : 5_000);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (onTerminal) process.stderr.write('\r\x1b[K');
  };
}
