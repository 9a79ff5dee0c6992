import fs from 'node:fs';

/**
 * The numeric precision a Piper voice runs at. `fp32`: the model as Piper publishes it. `int8`: its
 * quantised variant `<voice>.int8.onnx` (scripts/quantize-voice.mjs makes it beside the model, with
 * ONNX Runtime's own quantisation tool; it shares the model's `.onnx.json`): a quarter of the
 * file and of the memory, at the speed and word error rate docs/benchmarks.md records.
 */
export const NEURAL_PRECISIONS = ['fp32', 'int8'] as const;
export type NeuralPrecision = (typeof NEURAL_PRECISIONS)[number];

const INT8_SUFFIX = '.int8.onnx';

/** A voice's int8 variant is not a voice of its own: whoever lists the voices directory skips it. */
export function isPrecisionVariant(file: string): boolean {
  return file.endsWith(INT8_SUFFIX);
}

/**
 * The model file to load for `modelPath` (a voice's `<voice>.onnx`) at `precision`, and the
 * precision that file has: the int8 variant when asked for and present, else the model itself
 * (the caller says so in its log: a worker asked for int8 serves fp32 rather than nothing).
 */
export function modelAtPrecision(
  modelPath: string,
  precision: NeuralPrecision,
): { path: string; precision: NeuralPrecision } {
  if (precision === 'int8') {
    const int8 = `${modelPath.replace(/\.onnx$/, '')}${INT8_SUFFIX}`;
    if (fs.existsSync(int8)) return { path: int8, precision: 'int8' };
  }
  return { path: modelPath, precision: 'fp32' };
}
