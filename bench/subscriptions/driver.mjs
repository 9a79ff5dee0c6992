// bench/subscriptions' mutation driver on a thread of its own: the thread that reads 100,000 WebSocket messages a
// second falls tens of milliseconds behind, and a driver on it would send late, in bursts, and see responses late
// (counting them in flight longer, so skipping ticks). Here the schedule and the response times are this thread's.
import { parentPort, workerData } from 'node:worker_threads';
import { drive, mutation } from './mutations.mjs';

const results = await drive(mutation(workerData.target), workerData.schedule, () =>
  parentPort.postMessage({ measuring: true }),
);
parentPort.postMessage({ results });
