import { eventually, inOneWindow, untilClock } from '.';

afterEach(() => {
  jest.restoreAllMocks();
});

describe('eventually', () => {
  it('polls until the condition holds', async () => {
    let calls = 0;
    await eventually(() => (calls += 1) === 3, 60_000, 1);
    expect(calls).toBe(3);
  });

  it('fails naming its bound when the condition never holds', async () => {
    await expect(eventually(() => false, 0)).rejects.toThrow('condition not met within 0 ms');
  });
});

describe('untilClock', () => {
  it('resolves once the clock has reached the time', async () => {
    let clock = 1_000;
    jest.spyOn(Date, 'now').mockImplementation(() => (clock += 10));
    await untilClock(1_100, 1);
    expect(clock).toBeGreaterThanOrEqual(1_100);
  });
});

describe('inOneWindow', () => {
  it('discards an attempt that took longer than the window and returns the first that fitted, each after `before`', async () => {
    let clock = 0;
    jest.spyOn(Date, 'now').mockImplementation(() => clock);
    const took = [1_500, 950, 899];
    let prepared = 0;
    const result = await inOneWindow(
      async (attempt: number) => {
        clock += took[attempt - 1]!;
        return `attempt ${attempt}`;
      },
      { before: async () => (prepared += 1) },
    );
    expect(result).toBe('attempt 3');
    expect(prepared).toBe(3);
  });

  it('gives up after its attempts, saying how long they took', async () => {
    let clock = 0;
    jest.spyOn(Date, 'now').mockImplementation(() => clock);
    await expect(inOneWindow(async () => (clock += 2_000), { windowMs: 1_000, attempts: 2 })).rejects.toThrow(
      'no attempt fitted in one 1000 ms window (2 attempts took 2000, 2000 ms)',
    );
  });
});
