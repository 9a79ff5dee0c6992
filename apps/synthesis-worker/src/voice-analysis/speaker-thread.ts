import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { speakerFeatures, type SpeakerFeatures } from './speaker-measure';

/**
 * Entry of the thread that measures the installed speakers at boot (`measureSpeakers`): the analysis
 * of each speaker's reference rendering (pitch track, spectra, formants: a few hundred milliseconds
 * each) runs here, at the lowest CPU priority, never on the worker's event loop, which meanwhile
 * streams synthesis audio.
 */
try {
  os.setPriority(19);
} catch {
  // not permitted on this platform: the measuring then runs at normal priority
}

export interface SpeakerMeasureRequest {
  id: number;
  pcm: Int16Array;
  rate: number;
}

export type SpeakerMeasureReply = { id: number; features: SpeakerFeatures } | { id: number; error: string };

const port = parentPort!;
port.on('message', ({ id, pcm, rate }: SpeakerMeasureRequest) => {
  let reply: SpeakerMeasureReply;
  try {
    reply = { id, features: speakerFeatures(pcm, rate) };
  } catch (err) {
    reply = { id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
