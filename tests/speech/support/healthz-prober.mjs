// Probes a URL (argv[2]) about every 10 ms until stdin closes, printing one line per probe:
// `<epoch ms when sent> <latency ms> <status> <ms waiting for a core>`. The last field is how long,
// during the probe, the server's main thread (pid argv[3]) and this prober's own main thread were
// runnable but not running (Linux's /proc/<pid>/task/<pid>/schedstat, second field): on a machine
// whose cores are shared with the test's client and the local stack, that is time lost to other
// processes, not work the server did on its event loop. A process of its own, like a load
// balancer's health check, so that what the test process itself is doing does not show up as the
// server's latency. Where permitted it runs at a raised CPU priority.
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

try {
  os.setPriority(-10);
} catch {
  // not permitted (not root): the probes then run at normal priority
}

const url = process.argv[2];
const serverPid = Number(process.argv[3]);
/** Nanoseconds the thread has spent waiting on a run queue, or 0 where schedstat is not kept. */
const runQueueWaitNs = (pid) => {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1] ?? 0);
  } catch {
    return 0;
  }
};
const waiting = () => runQueueWaitNs(process.pid) + (serverPid > 0 ? runQueueWaitNs(serverPid) : 0);

let running = true;
process.stdin.on('end', () => (running = false));
process.stdin.on('close', () => (running = false));
process.stdin.resume();
while (running) {
  const sentAt = performance.timeOrigin + performance.now();
  const waitedBefore = waiting();
  const started = performance.now();
  let status = 0;
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    status = res.status;
  } catch {
    status = -1;
  }
  const latency = performance.now() - started;
  const waited = (waiting() - waitedBefore) / 1e6;
  process.stdout.write(`${Math.round(sentAt)} ${latency.toFixed(2)} ${status} ${waited.toFixed(2)}\n`);
  await new Promise((resolve) => setTimeout(resolve, 10));
}
