// Probes a URL (argv[2]) about every 10 ms until stdin closes, printing one line per probe:
// `<epoch ms when sent> <latency ms> <status>`. A process of its own, like a load balancer's health
// check, so that what the test process itself is doing (streaming a large upload, its own garbage
// collection) does not show up as the server's latency. Where permitted it runs at a raised CPU
// priority: the instrument must not be what waits for a core (the server under test keeps its own).
import os from 'node:os';
import { performance } from 'node:perf_hooks';

try {
  os.setPriority(-10);
} catch {
  // not permitted (not root): the probes then run at normal priority
}

const url = process.argv[2];
let running = true;
process.stdin.on('end', () => (running = false));
process.stdin.on('close', () => (running = false));
process.stdin.resume();
while (running) {
  const sentAt = performance.timeOrigin + performance.now();
  const started = performance.now();
  let status = 0;
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    status = res.status;
  } catch {
    status = -1;
  }
  process.stdout.write(`${Math.round(sentAt)} ${(performance.now() - started).toFixed(2)} ${status}\n`);
  await new Promise((resolve) => setTimeout(resolve, 10));
}
