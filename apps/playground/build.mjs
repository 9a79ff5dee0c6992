// Builds the playground into dist/: one script bundle and one stylesheet (content-hashed names, so the
// gateway can cache them for good) and index.html pointing at them. esbuild bundles the npm packages
// the page uses (oauth4webapi, graphql-ws) into our own asset: the page loads nothing from elsewhere.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, 'dist');
fs.rmSync(out, { recursive: true, force: true });

const result = await esbuild.build({
  entryPoints: [path.join(here, 'src/main.ts'), path.join(here, 'src/styles.css')],
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  entryNames: 'assets/[name]-[hash]',
  outdir: out,
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.entries(result.metafile.outputs);
const find = (entry) => {
  const hit = outputs.find(([, meta]) => meta.entryPoint?.endsWith(entry));
  if (!hit) throw new Error(`playground build: no output for ${entry}`);
  return `/${path.relative(out, hit[0]).split(path.sep).join('/')}`;
};
const html = fs
  .readFileSync(path.join(here, 'index.html'), 'utf8')
  .replace('%SCRIPT%', find('src/main.ts'))
  .replace('%STYLE%', find('src/styles.css'));
fs.writeFileSync(path.join(out, 'index.html'), html);
console.log(`playground: built ${path.relative(process.cwd(), out)}`);
