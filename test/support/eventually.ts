/**
 * Retries `check` until it stops throwing (or returns something other than `false`), and returns
 * what it returned. Asynchronous outcomes are awaited this way, never with a fixed sleep.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  {
    timeoutMs = 15_000,
    intervalMs = 25,
    what = 'condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<Exclude<T, false>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result !== false) return result as Exclude<T, false>;
      lastError = new Error(`${what} was still false`);
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      if (lastError instanceof Error) {
        lastError.message = `Not met within ${timeoutMs} ms (${what}): ${lastError.message}`;
        throw lastError;
      }
      throw new Error(`Not met within ${timeoutMs} ms (${what}): ${String(lastError)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
