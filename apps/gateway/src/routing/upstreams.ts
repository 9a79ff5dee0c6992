import { UPSTREAM_NAMES, type UpstreamName } from './edge-route-table';
import { createUpstream, type Upstream, type UpstreamBounds } from './upstream';

/** The variable an upstream's address is read from: `<NAME>_URL`, as `npm start` and the chart name it. */
type UrlVariable<Name extends string> = `${Uppercase<Name>}_URL`;

/** The settings the upstreams are made from: each one's `<NAME>_URL` (routing-config.ts) and the time bounds. */
type UpstreamSettings = Record<UrlVariable<UpstreamName>, string> & {
  UPSTREAM_TIMEOUT_MS: number;
  UPSTREAM_CONNECT_TIMEOUT_MS: number;
};

/**
 * One pool for every service the edge-route table forwards to: a service the table names without a
 * `<NAME>_URL` in the gateway's configuration does not compile.
 */
export function createUpstreams(config: UpstreamSettings): Record<UpstreamName, Upstream> {
  const bounds: UpstreamBounds = {
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
  };
  const urlOf = (name: UpstreamName) => config[`${name.toUpperCase()}_URL` as UrlVariable<UpstreamName>];
  return Object.fromEntries(UPSTREAM_NAMES.map((name) => [name, createUpstream(name, urlOf(name), bounds)])) as Record<
    UpstreamName,
    Upstream
  >;
}
