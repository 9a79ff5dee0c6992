#!/usr/bin/env node
// `npm start`: install if needed, bring the stack up, build, and run the apps of the service manifest until Ctrl-C.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fetchVoices, piperVoicesDir } from './fetch-voices.mjs';
import { openPrivateLog } from './private-log.mjs';
import { onPinnedNode } from './runtime.mjs';
import { services } from './services.mjs';
import {
  ensureDependencies,
  ensureSystemPackages,
  localSecrets,
  root,
  run,
  stackDir,
  stackEnv,
  stackUp,
} from './lib.mjs';

await onPinnedNode(import.meta.url);
ensureDependencies();
ensureSystemPackages();
stackUp();
// The speech service's neural voice; without it only the eSpeak NG model is served.
await fetchVoices().catch((err) => console.error(`neural voice not fetched: ${err.message}`));
run('npm', ['run', 'build']);

// The apps and their ports: the service manifest (scripts/services.mjs). PORT moves the public entry point.
const apps = services.map((service) => ({
  ...service,
  port: service.serves === 'public' ? Number(process.env.PORT ?? service.port) : service.port,
}));
const gateway = apps.find((app) => app.serves === 'public');
const publicUrl = process.env.PUBLIC_URL ?? `http://127.0.0.1:${gateway.port}`;
// Where the apps reach each internal one: <NAME>_URL (AUTH_URL, CONTENT_URL: docs/configuration.md).
const internalUrls = Object.fromEntries(
  apps
    .filter((app) => app.serves === 'internal')
    .map((app) => [`${app.name.toUpperCase().replaceAll('-', '_')}_URL`, `http://127.0.0.1:${app.port}`]),
);
/** The settings a development platform gets beyond the apps' defaults (also the docs examples test's). */
const DEVELOPMENT = JSON.parse(fs.readFileSync(path.join(root, 'scripts', 'development.json'), 'utf8'));
const shared = {
  ...stackEnv(),
  ...localSecrets(),
  PUBLIC_URL: publicUrl,
  // Development: browser pages on the playground's origin may call the APIs across origins (the
  // apps' default is none); set CORS_ALLOWED_ORIGINS to add a front end's (docs/security.md "CORS").
  CORS_ALLOWED_ORIGINS: process.env.CORS_ALLOWED_ORIGINS ?? new URL(publicUrl).origin,
  // Development (scripts/development.json, README "Plans"): accounts made during the tour get the development
  // admin's plan (pro), not free's 3 requests per second (auth's default), and callers without credentials
  // (sign-up, sign-in, public reads) pro's limits per address, so the README's blocks pasted at once fit.
  ...Object.fromEntries(Object.entries(DEVELOPMENT).map(([name, value]) => [name, process.env[name] ?? value])),
  ...internalUrls,
  PIPER_VOICES_DIR: piperVoicesDir(),
};

const children = apps.map(({ name, port, metricsPort }) => {
  const log = openPrivateLog(path.join(stackDir, 'logs', `${name}.log`));
  const child = spawn(process.execPath, [path.join(root, 'apps', name, 'dist', 'main.js')], {
    env: { ...process.env, ...shared, PORT: String(port), METRICS_PORT: String(metricsPort) },
    stdio: ['ignore', log, log],
  });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${code ?? signal}); see .stack/logs/${name}.log`);
      stop(1);
    }
  });
  return { name, port, child };
});

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log('stopping apps…');
  let remaining = children.length;
  for (const { child } of children) {
    if (child.exitCode !== null) {
      if (--remaining === 0) process.exit(code);
      continue;
    }
    child.once('exit', () => {
      if (--remaining === 0) process.exit(code);
    });
    child.kill('SIGTERM');
  }
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

async function waitReady({ name, port }) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${name} was not ready within 120 s; see .stack/logs/${name}.log`);
}

try {
  await Promise.all(children.map(waitReady));
} catch (err) {
  console.error(err.message);
  stop(1);
}
if (!stopping) {
  const postStart = path.join(root, 'scripts', 'post-start.mjs');
  if (fs.existsSync(postStart)) run(process.execPath, [postStart], { env: { ...process.env, ...shared } });
  console.log(`
platform ready (logs in .stack/logs/):
  speech API        ${publicUrl}/v1            (REST)   ${publicUrl.replace(/^http/, 'ws')}/v1/text-to-speech/{voice_id}/stream-input
  content REST      ${publicUrl}/api/v1
  GraphQL           ${publicUrl}/graphql        (queries/mutations over HTTP, subscriptions over graphql-ws)
  OAuth 2.0         ${publicUrl}/.well-known/oauth-authorization-server
  health            ${apps.map(({ name, port }) => `${name} :${port}`).join(', ')}
  metrics           ${apps.map(({ name, metricsPort }) => `${name} :${metricsPort}/metrics`).join(', ')}
press Ctrl-C to stop`);
}
