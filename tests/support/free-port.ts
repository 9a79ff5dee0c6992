import net from 'node:net';

// A port the OS picks (`listen(0)`) comes from its ephemeral range, which every other jest worker's
// `freePort` and every outgoing connection on the machine also draw from. Between our check and the app's
// own bind, seconds apart on a loaded machine, another worker could be handed the same port and start its
// app there first; our app then fails to bind, and our readiness check is answered by the other test's app
// (seen in CI: a gateway's requests went to another test's content, whose identity secret differs, and got
// 401). So each jest worker hands out ports from a block of its own, below the ephemeral range (Linux's
// starts at 32768), never the same one twice in a row of the block.
const FIRST_PORT = 20_000;
const BLOCK = 1_500;
const BLOCKS = 8;
let handedOut = 0;

/**
 * The jest worker's block: workers are numbered from 1 (`JEST_WORKER_ID`); a process outside jest takes block 0.
 * `TEST_PORT_BLOCK` shifts every worker's block, so two jest runs on one machine (a developer's two
 * terminals, each with `--runInBand`) can be given blocks of their own.
 */
function blockStart(): number {
  const worker = Number(process.env.JEST_WORKER_ID ?? '0');
  const shift = Number(process.env.TEST_PORT_BLOCK ?? '0');
  const index =
    (Number.isInteger(worker) && worker > 0 ? worker : 0) + (Number.isInteger(shift) && shift > 0 ? shift : 0);
  return FIRST_PORT + (index % BLOCKS) * BLOCK;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port that is free now and that no other jest worker of this run hands out. */
export async function freePort(): Promise<number> {
  const start = blockStart();
  for (let tried = 0; tried < BLOCK; tried += 1) {
    const port = start + (handedOut++ % BLOCK);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${start}-${start + BLOCK - 1}`);
}
