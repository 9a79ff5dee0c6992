// Jest's test sequencer for `npm test`: the slowest files first, so that two workers finish together
// instead of one running a four-minute file alone at the end. Jest sorts by the durations it recorded
// in its own cache, which a fresh clone does not have (it then sorts by file size, a poor guess: the
// slowest files kill and restart processes, the largest assert many fast things). So durations come
// from jest's cache when it has them, else from tests/support/test-durations.json (written by
// `node scripts/test-durations.mjs` after a full run); a file in neither goes first, as jest does.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const recorded = require('./test-durations.json');

const root = path.resolve(__dirname, '..', '..');

class SlowestFirst extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached / 1000;
      const known = recorded[path.relative(root, test.path)];
      return known === undefined ? Infinity : known;
    };
    const order = new Map(tests.map((test) => [test, seconds(test)]));
    return [...tests].sort((a, b) => order.get(b) - order.get(a) || (a.path < b.path ? -1 : 1));
  }
}

module.exports = SlowestFirst;
