#!/usr/bin/env node
// The int8 variant of a Piper voice (`<voice>.int8.onnx` beside `<voice>.onnx`, sharing its
// `.onnx.json`), made with ONNX Runtime's own quantisation tool (quantize-voice/quantize.py) in the
// virtual environment .stack/quantize-venv, which this creates with pinned versions
// (quantize-voice/requirements.txt) from PyPI. Idempotent: a variant newer than its model is kept.
// The worker serves it with NEURAL_PRECISION=int8 (docs/configuration.md).
//
//   node scripts/quantize-voice.mjs <voices dir> <voice> [--method static|dynamic] [--force]
// (--force: made again even when up to date, e.g. to compare the methods with bench/neural-precision)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensurePythonVenv, stackDir } from './lib.mjs';

const here = path.join(path.dirname(fileURLToPath(import.meta.url)), 'quantize-voice');
const VENV = path.join(stackDir, 'quantize-venv');
const REQUIREMENTS = path.join(here, 'requirements.txt');
const ORT_VERSION = /^onnxruntime==(.+)$/m.exec(fs.readFileSync(REQUIREMENTS, 'utf8'))?.[1] ?? '';

/** The variant's file name: the worker looks for exactly this (libs/speech-engine/src/piper-precision.ts). */
export const int8File = (voice) => `${voice}.int8.onnx`;

/** Makes `<voice>.int8.onnx` in `dir` unless an up-to-date one is there (or `force`); returns its path. */
export function quantizeVoice(dir, voice, { method = 'static', force = false } = {}) {
  const source = path.join(dir, `${voice}.onnx`);
  const target = path.join(dir, int8File(voice));
  const upToDate = fs.existsSync(target) && fs.statSync(target).mtimeMs >= fs.statSync(source).mtimeMs;
  if (upToDate && !force) return target;
  console.log(`quantising the Piper voice ${voice} to int8 (ONNX Runtime ${ORT_VERSION}, ${method})…`);
  const python = ensurePythonVenv(VENV, REQUIREMENTS, 'onnxruntime');
  // Written beside the target and renamed into place: a worker never sees half a model.
  const partial = `${target}.partial-${process.pid}`;
  try {
    execFileSync(python, [path.join(here, 'quantize.py'), source, partial, '--method', method], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 600_000,
      maxBuffer: 16 << 20,
    });
    fs.renameSync(partial, target);
  } catch (err) {
    // The tool's warnings are noise on success; on failure its last lines say why.
    const why = String(err.stderr ?? '')
      .trim()
      .split('\n')
      .slice(-3)
      .join(' ');
    throw new Error(`quantisation failed${why ? `: ${why}` : ''}`);
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return target;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { method: { type: 'string', default: 'static' }, force: { type: 'boolean', default: false } },
  });
  const [dir, voice] = positionals;
  if (!dir || !voice)
    throw new Error('usage: node scripts/quantize-voice.mjs <voices dir> <voice> [--method static|dynamic] [--force]');
  console.log(quantizeVoice(dir, voice, { method: values.method, force: values.force }));
}
