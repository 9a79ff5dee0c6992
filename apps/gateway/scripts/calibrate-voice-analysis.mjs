// Measures eSpeak NG's variants with the analysis itself; paste the output into libs/speech-engine/src/espeak-calibration.ts.
// Run after `npx tsc -b apps/gateway`: node apps/gateway/scripts/calibrate-voice-analysis.mjs
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const analysis = require('../dist/voice-analysis');
const text =
  'The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore, and the shells she sells are surely sea shells.';

for (const variant of ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'f1', 'f2', 'f3', 'f4', 'f5']) {
  const f0 = [];
  let at50 = null;
  for (const pitch of [0, 25, 50, 75, 99]) {
    const wav = execFileSync('espeak-ng', ['-v', `en-us+${variant}`, '-p', String(pitch), '--stdout', text]);
    const decoded = await analysis.decodeAudio(wav, { maxDurationSec: 120 });
    const a = analysis.analyseVoice([decoded.samples]);
    f0.push(a.f0MedianHz);
    if (pitch === 50) at50 = a;
  }
  console.log(
    `{ variant: '${variant}', gender: '${variant.startsWith('m') ? 'male' : 'female'}', f0AtPitch: [${f0.join(', ')}], centroidHz: ${at50.spectralCentroidHz}, formant1Hz: ${at50.formant1Hz}, formant2Hz: ${at50.formant2Hz}, rangeSemitones: ${at50.f0RangeSemitones} },`,
  );
}
