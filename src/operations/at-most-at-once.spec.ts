import { atMostAtOnce } from './at-most-at-once';

/** A task that counts how many run at once, answering its item doubled (or failing on `fails`). */
function watched(fails?: number) {
  const seen = { running: 0, most: 0, started: [] as number[] };
  const task = async (item: number) => {
    seen.started.push(item);
    seen.running++;
    seen.most = Math.max(seen.most, seen.running);
    await new Promise((resolve) => setTimeout(resolve, 1 + (item % 3)));
    seen.running--;
    if (item === fails) throw new Error(`item ${item} failed`);
    return item * 2;
  };
  return { seen, task };
}

const items = Array.from({ length: 30 }, (_, i) => i);

describe('Tasks run at most so many at once', () => {
  it("when every task answers, then each answer is in its item's place and no more than 8 ran at once", async () => {
    const { seen, task } = watched();

    const answers = await atMostAtOnce(items, 8, task);

    expect(answers).toEqual(items.map((i) => i * 2));
    expect(seen.most).toBe(8);
  });

  it('when there are fewer items than places, then each runs, all at once', async () => {
    const { seen, task } = watched();

    expect(await atMostAtOnce([1, 2, 3], 8, task)).toEqual([2, 4, 6]);
    expect(seen.most).toBe(3);
  });

  it('when there is nothing to do, then it answers nothing', async () => {
    expect(await atMostAtOnce([], 8, watched().task)).toEqual([]);
  });

  it('when a task fails, then its failure is thrown and no task starts after it', async () => {
    const { seen, task } = watched(3);

    await expect(atMostAtOnce(items, 2, task)).rejects.toThrow('item 3 failed');
    expect(seen.started.length).toBeLessThan(items.length);
    expect(seen.running).toBe(0);
  });
});
