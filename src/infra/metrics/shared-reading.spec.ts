import { SharedReading } from './shared-reading';

describe('SharedReading', () => {
  let now: number;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('when many ask at once, then one read answers them all', async () => {
    let reads = 0;
    const reading = new SharedReading(async () => ++reads, 5_000);

    const answers = await Promise.all(Array.from({ length: 50 }, () => reading.get()));

    expect(answers).toEqual(Array.from({ length: 50 }, () => 1));
    expect(reads).toBe(1);
  });

  it('when asked again within the interval, then the last reading answers; after it, a new one', async () => {
    let reads = 0;
    const reading = new SharedReading(async () => ++reads, 5_000);
    await reading.get();

    now += 4_999;
    expect(await reading.get()).toBe(1);
    now += 1;
    expect(await reading.get()).toBe(2);
  });

  it('when a read fails, then it answers undefined and is not tried again within the interval', async () => {
    let reads = 0;
    const errors: unknown[] = [];
    const reading = new SharedReading(
      async () => {
        reads += 1;
        throw new Error('Postgres is down');
      },
      5_000,
      (error) => errors.push(error),
    );

    expect(await reading.get()).toBeUndefined();
    expect(await reading.get()).toBeUndefined();
    expect({ reads, errors: errors.length }).toEqual({ reads: 1, errors: 1 });
  });

  it('when the interval is 0, then each ask reads, and those at once still share one', async () => {
    let reads = 0;
    const reading = new SharedReading(async () => ++reads, 0);

    await Promise.all([reading.get(), reading.get()]);
    await reading.get();

    expect(reads).toBe(2);
  });
});
