import { SubscriberQueue } from '../src/subscriptions/subscriber-queue';

describe('SubscriberQueue', () => {
  it('delivers in order and hands items straight to a waiting reader', async () => {
    const queue = new SubscriberQueue<number>(10, jest.fn(), jest.fn());
    const first = queue.next();
    queue.push(1);
    queue.push(2);
    queue.push(3);
    expect(await first).toEqual({ value: 1, done: false });
    expect(await queue.next()).toEqual({ value: 2, done: false });
    expect(await queue.next()).toEqual({ value: 3, done: false });
  });

  it('overflows once, ends, and reports it', async () => {
    const onOverflow = jest.fn();
    const onEnd = jest.fn();
    const queue = new SubscriberQueue<number>(2, onOverflow, onEnd);
    expect(queue.push(1)).toBe(true);
    expect(queue.push(2)).toBe(true);
    expect(queue.push(3)).toBe(false);
    expect(queue.push(4)).toBe(false);
    expect(onOverflow).toHaveBeenCalledTimes(1);
    expect(onEnd).toHaveBeenCalledTimes(1);
    expect(await queue.next()).toEqual({ value: undefined, done: true });
  });

  it('ends a waiting reader on return()', async () => {
    const onEnd = jest.fn();
    const queue = new SubscriberQueue<number>(2, jest.fn(), onEnd);
    const waiting = queue.next();
    await queue.return();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(onEnd).toHaveBeenCalledTimes(1);
  });
});
