// bench/subscriptions' mutation driver on a thread of its own: the thread that reads 100,000 WebSocket messages a
// second falls tens of milliseconds behind, and a driver on it would send late, in bursts, and see responses late
// (counting them in flight longer, so skipping ticks). Here the schedule and the response times are this thread's.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { drive, mutation } from './mutations.mjs';

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const result = await drive(mutation(workerData.target), workerData.schedule);
loopDelay.disable();
parentPort.postMessage({ ...result, loopDelayP50: loopDelay.percentile(50) / 1e6, loopDelayP99: loopDelay.percentile(99) / 1e6 });
