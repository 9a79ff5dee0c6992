#!/usr/bin/env node
// Soak benchmark: auth, content, a gateway and a synthesis worker as processes on the local stack, each
// with its own METRICS_PORT, under a steady mix of the three interfaces (speech REST, /stream and
// stream-input; GraphQL writes with graphql-ws subscribers; OAuth client credentials and introspection:
// tests/support/traffic-mix.ts) at --rate operations/s for --minutes; every app's RSS, heap, event-loop
// p99 and open handles sampled every --sample-seconds (after a full garbage collection, asked for through
// the V8 inspector, every --full-gc-seconds: bench/soak/full-gc.ts), latency percentiles per minute per
// interface, and a verdict: exit code 1 when memory grows without bound, latency drifts, or anything
// failed (bench/soak/main.ts gives the bounds and why).
// Needs the stack (node scripts/stack.mjs up) and a build (npm run build). Run it alone on the machine.
//
//   node bench/soak/bench.mjs [--minutes 10] [--rate 5] [--sample-seconds 5] [--full-gc-seconds 30]
import { createRequire } from 'node:module';
import './register-ts.mjs';

const { main } = createRequire(import.meta.url)('./main.ts');

process.exitCode = await main(process.argv.slice(2));
