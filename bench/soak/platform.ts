// The platform the soak runs: auth, content, one gateway and one synthesis worker as processes on the
// shared local stack (the gateway tests' harness: own databases, prefixes, queue and ports), each app
// with a metrics listener of its own for the sampler and the V8 inspector for full collections.
import { freePort, type RunningApp } from '@platform/testing';
import { startPlatform, type Platform } from '../../tests/gateway/platform';
import { connectInspector, inspectorUrl } from './full-gc';
import type { WatchedProcess } from './sampler';

export interface SoakPlatform {
  platform: Platform;
  watched: WatchedProcess[];
}

/**
 * Plan limits opened wide: the soak measures whether the platform stays steady under a steady load, and a
 * 429 from the limiter, or a generation refused for the free plan's 10,000 characters a month (the mix
 * spends them in about three minutes), would count as a failed request.
 */
const ROOMY_RATES = JSON.stringify({
  free: { rps: 10_000, concurrency: 1_000 },
  anonymous: { rps: 10_000, concurrency: 1_000 },
});
const ROOMY_CHARACTERS = JSON.stringify({ free: { character_limit: 1_000_000_000 } });

/** `runMs`: how long the soak drives traffic; sign-in tokens (ACCESS_TOKEN_TTL) are made to outlive it. */
export async function startSoakPlatform(runMs: number): Promise<SoakPlatform> {
  const ports = {
    auth: await freePort(),
    content: await freePort(),
    gateway: await freePort(),
    worker: await freePort(),
  };
  // The V8 inspector on loopback, on a port the OS picks, so the sampler can ask for full collections (full-gc.ts).
  const inspect = { NODE_OPTIONS: '--inspect=127.0.0.1:0' };
  const platform = await startPlatform({
    authEnv: {
      ...inspect,
      METRICS_PORT: String(ports.auth),
      ACCESS_TOKEN_TTL: String(Math.max(3600, Math.ceil(runMs / 1000) + 600)),
    },
    contentEnv: { ...inspect, METRICS_PORT: String(ports.content) },
    gatewayEnv: {
      ...inspect,
      METRICS_PORT: String(ports.gateway),
      PLAN_LIMITS_JSON: ROOMY_RATES,
      SPEECH_PLANS: ROOMY_CHARACTERS,
    },
    speechWorkers: { count: 1, env: { ...inspect, METRICS_PORT: String(ports.worker) } },
  });
  const watch = async (name: string, app: RunningApp, metricsPort: number): Promise<WatchedProcess> => {
    const url = inspectorUrl(app.output());
    if (!url) throw new Error(`${name} printed no inspector address:\n${app.output().slice(0, 2000)}`);
    return {
      name,
      pid: app.process.pid!,
      metricsUrl: `http://127.0.0.1:${metricsPort}`,
      inspector: await connectInspector(url),
    };
  };
  try {
    const watched = await Promise.all([
      watch('auth', platform.auth, ports.auth),
      watch('content', platform.content, ports.content),
      watch('gateway', platform.gateways[0]!, ports.gateway),
      watch('worker', platform.workers[0]!, ports.worker),
    ]);
    return { platform, watched };
  } catch (err) {
    await platform.stop();
    throw err;
  }
}
