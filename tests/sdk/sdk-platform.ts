import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { createApiKey, registerAccount, startPlatform, type Platform } from '../gateway/platform';
import { ensurePythonSdk, runPythonSdk, type PythonStep } from './python-sdk';
import { startTlsProxy, type TlsProxy } from './tls-proxy';

/** An account of the platform with an API key, and both official SDKs pointed at the gateway with it. */
export interface SdkCaller {
  key: string;
  client: ElevenLabsClient;
  /** Runs tests/sdk/python/<script>.py with the Python SDK as this caller. */
  python(script: string, parameters?: unknown): Promise<Record<string, PythonStep>>;
}

export interface SdkPlatform {
  platform: Platform;
  newCaller(name: string): Promise<SdkCaller>;
  stop(): Promise<void>;
}

/**
 * auth, content and the gateway (tests/gateway/platform.ts) and a synthesis worker as processes on
 * a queue and speech database of their own, and the Python SDK's virtual environment, made ready
 * together. `plans` are the `SPEECH_PLANS` overrides; `planLimits` the gateway's `PLAN_LIMITS_JSON`
 * (default: the free plan roomy enough that no test meets its rate or concurrency by accident);
 * `gatewayEnv` any other settings of the gateway (e.g. a short `SPEECH_WS_IDLE_TIMEOUT_MS`).
 */
export async function startSdkPlatform(
  plans: Record<string, unknown>,
  planLimits: Record<string, { rps: number; concurrency: number }> = { free: { rps: 1000, concurrency: 100 } },
  gatewayEnv: Record<string, string> = {},
): Promise<SdkPlatform> {
  const [platform] = await Promise.all([
    startPlatform({
      speechWorkers: {},
      gatewayEnv: { ...gatewayEnv, SPEECH_PLANS: JSON.stringify(plans), PLAN_LIMITS_JSON: JSON.stringify(planLimits) },
    }),
    ensurePythonSdk(),
  ]);
  let proxy: TlsProxy;
  try {
    proxy = await startTlsProxy(platform.publicUrl);
  } catch (err) {
    await platform.stop();
    throw err;
  }
  return {
    platform,
    async newCaller(name) {
      const account = await registerAccount(platform.publicUrl, name);
      const { key } = await createApiKey(platform.auth.url, account.id);
      return {
        key,
        client: new ElevenLabsClient({ apiKey: key, baseUrl: platform.publicUrl, maxRetries: 0, timeoutInSeconds: 60 }),
        python: (script, parameters) =>
          runPythonSdk(
            script,
            { baseUrl: platform.publicUrl, apiKey: key, tls: { baseUrl: proxy.url, certFile: proxy.certFile } },
            parameters,
          ),
      };
    },
    async stop() {
      await Promise.allSettled([proxy.close(), platform.stop()]);
    },
  };
}
