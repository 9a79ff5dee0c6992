// Builds the playground into dist/ and the reference pages into dist/reference/: for each, script
// bundles and stylesheets (content-hashed names, so the gateway can cache them for good) and HTML pages
// pointing at them. esbuild bundles the npm packages the pages use (oauth4webapi, graphql-ws, Swagger
// UI, GraphiQL and React) into our own assets: the pages load nothing from elsewhere.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, 'dist');
fs.rmSync(out, { recursive: true, force: true });

/**
 * Bundles `pages` ({output name: {template, script, style, title?}}) into `outdir`; assets are
 * addressed as `${urlBase}/assets/...`.
 */
async function buildSite(outdir, urlBase, pages) {
  const entries = Object.values(pages).flatMap((page) => [page.script, page.style]);
  const result = await esbuild.build({
    entryPoints: entries.map((entry) => path.join(here, entry)),
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    entryNames: 'assets/[name]-[hash]',
    outdir,
    metafile: true,
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.entries(result.metafile.outputs);
  const find = (entry) => {
    const hit = outputs.find(
      ([, meta]) => meta.entryPoint?.endsWith(entry) && !meta.entryPoint.endsWith('.css') === !entry.endsWith('.css'),
    );
    if (!hit) throw new Error(`playground build: no output for ${entry}`);
    return `${urlBase}/${path.relative(outdir, hit[0]).split(path.sep).join('/')}`;
  };
  for (const [name, page] of Object.entries(pages)) {
    const html = fs
      .readFileSync(path.join(here, page.template), 'utf8')
      .replace('%SCRIPT%', find(page.script))
      .replace('%STYLE%', find(page.style))
      .replace('%TITLE%', page.title ?? '');
    fs.writeFileSync(path.join(outdir, name), html);
  }
  console.log(`playground: built ${path.relative(process.cwd(), outdir)}`);
}

await buildSite(out, '', { 'index.html': { template: 'index.html', script: 'src/main.ts', style: 'src/styles.css' } });
// Served by the gateway at /docs, /docs/asyncapi and /graphql (browsers), assets at /docs/assets.
await buildSite(path.join(out, 'reference'), '/docs', {
  'docs.html': {
    template: 'reference/page.html',
    script: 'src/reference/docs.ts',
    style: 'src/reference/docs.css',
    title: 'API reference · speech, content and auth',
  },
  'asyncapi.html': {
    template: 'reference/page.html',
    script: 'src/reference/asyncapi.ts',
    style: 'src/reference/asyncapi.css',
    title: 'Message reference · WebSockets and Kafka',
  },
  'explorer.html': {
    template: 'reference/explorer.html',
    script: 'src/reference/explorer.ts',
    style: 'src/reference/explorer.css',
  },
});
// Swagger UI's OAuth2 pop-up comes back to swagger-ui-dist's own redirect page (served at
// /docs/oauth2-redirect.html), which loads its script from beside it: both copied as shipped.
const swaggerUiDist = path.dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
for (const name of ['oauth2-redirect.html', 'oauth2-redirect.js'])
  fs.copyFileSync(path.join(swaggerUiDist, name), path.join(out, 'reference', name));
