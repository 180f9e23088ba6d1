/**
 * Each item mapped by `task`, at most `atOnce` tasks running at a time, the answers in the items'
 * order. The first failure stops it: no task starts after it, those running are let finish, and
 * that failure is thrown.
 */
export async function atMostAtOnce<T, R>(
  items: readonly T[],
  atOnce: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const answers: R[] = [];
  let next = 0;
  let failed: { error: unknown } | undefined;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        answers[index] = await task(items[index]);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  if (failed) throw failed.error;
  return answers;
}
