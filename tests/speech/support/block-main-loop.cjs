// Test hook, preloaded into a worker with NODE_OPTIONS=--require: SIGUSR2 blocks the process's main
// thread for BLOCK_MAIN_LOOP_MS (a busy loop, as CPU-bound work on the event loop would), while its
// other threads (the lock heartbeat) run on. Worker threads get no signals, so only the main one listens.
const { isMainThread } = require('node:worker_threads');
if (isMainThread) {
  process.on('SIGUSR2', () => {
    const until = Date.now() + Number(process.env.BLOCK_MAIN_LOOP_MS || 3000);
    while (Date.now() < until) {
      // busy: nothing else runs on this thread meanwhile
    }
  });
}
