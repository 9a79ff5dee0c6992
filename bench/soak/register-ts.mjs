// Lets plain `node` run the soak's TypeScript, which it shares with the jest test of its one-minute form
// (tests/soak) and with the tests' traffic mix (tests/support): `.ts` files are compiled by swc with the
// options jest.config.js uses, and `@platform/testing` / `@platform/<lib>` resolve as jest maps them (the
// harness, the libraries' sources). Node 20 cannot strip types itself.
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const { transformSync } = createRequire(import.meta.url)('@swc/core');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const options = {
  jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

Module._extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename });
  module._compile(code, filename);
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveAliased(request, ...rest) {
  if (request === '@platform/testing') return resolve.call(this, path.join(root, 'tests/support'), ...rest);
  const lib = /^@platform\/([a-z-]+)$/.exec(request);
  if (lib && fs.existsSync(path.join(root, 'libs', lib[1], 'src')))
    return resolve.call(this, path.join(root, 'libs', lib[1], 'src'), ...rest);
  return resolve.call(this, request, ...rest);
};
