import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Redis } from 'ioredis';
import type { Logger } from '@platform/logger';
import { DEFAULT_VOICE_SETTINGS, synthesizePiperPcm, type PiperVoice } from '@platform/speech-engine';
import type { MeasuredSpeaker } from '@platform/voice-analysis';
import type { NeuralModel } from '../synthesis/neural-model';
import type { SpeakerFeatures } from './speaker-measure';
import type { SpeakerMeasureReply, SpeakerMeasureRequest } from './speaker-thread';

/** What every installed speaker says to be measured: pangrams, so every speaker's vowels are heard. */
const REFERENCE_TEXT =
  'The quick brown fox jumps over the lazy dog. She sells sea shells by the sea shore, and the shells she sells are surely sea shells.';

/** Part of every cache key: raised when the measuring changes, so features measured before are not reused. */
const MEASURE_VERSION = 1;

/**
 * Where the speakers' features are kept between boots, by model: a voice file measured once is not
 * measured again by any worker sharing the store (a model of 900 speakers takes some 15 minutes).
 */
export interface SpeakerFeatureCache {
  get(key: string): Promise<MeasuredSpeaker[] | null>;
  set(key: string, speakers: MeasuredSpeaker[]): Promise<void>;
}

/** Kept this long after the last measuring: a model no worker loads any more is forgotten. */
const CACHE_TTL_SECONDS = 30 * 24 * 3600;

/** The cache in Redis (`<prefix>speaker-features:<key>`, JSON); a read or write that fails is a miss. */
export function redisSpeakerCache(redis: Redis, keyPrefix: string, logger: Logger): SpeakerFeatureCache {
  const keyOf = (key: string) => `${keyPrefix}speaker-features:${key}`;
  return {
    async get(key) {
      try {
        const json = await redis.get(keyOf(key));
        return json === null ? null : (JSON.parse(json) as MeasuredSpeaker[]);
      } catch (err) {
        logger.warn({ err }, 'speaker features not read from Redis; measuring');
        return null;
      }
    },
    async set(key, speakers) {
      try {
        await redis.set(keyOf(key), JSON.stringify(speakers), 'EX', CACHE_TTL_SECONDS);
      } catch (err) {
        logger.warn({ err }, 'speaker features not kept in Redis; the next boot measures again');
      }
    },
  };
}

export interface MeasureSpeakersOptions {
  espeakBinary?: string;
  cache?: SpeakerFeatureCache;
}

/**
 * The compiled thread entry, resolved through the worker's `dist` so that code loaded from the
 * TypeScript sources (the tests) starts the built thread as well: a worker thread runs JavaScript only.
 */
const THREAD_ENTRY = path.resolve(__dirname, '..', '..', 'dist', 'voice-analysis', 'speaker-thread.js');

/**
 * The features of every installed speaker, as the cloning analysis measures a clone's samples:
 * each speaker says the reference sentence (without sampling noise, so the measure is the same on
 * every worker) and is analysed like an upload. Only with more than one speaker installed (with one
 * there is nothing to choose: `nearestSpeaker`). The inference runs on the model's thread and the
 * analysis on a thread of its own at the lowest priority, never on this event loop; a voice file's
 * speakers are kept in `cache` by the file's checksum, so a voice is measured once, not at every
 * boot of every worker. A speaker that cannot be measured is left out, with a warning (and its
 * voice's measure is not kept, so the next boot tries again).
 */
export async function measureSpeakers(
  model: NeuralModel,
  logger: Logger,
  options: MeasureSpeakersOptions = {},
): Promise<MeasuredSpeaker[]> {
  if (model.state !== 'loaded') return [];
  const speakers = model.catalogue.speakers().filter((s) => model.voices.has(s.voice.name));
  if (speakers.length < 2) return [];
  const started = performance.now();
  const measured: MeasuredSpeaker[] = [];
  let analysis: ReturnType<typeof startMeasureThread> | undefined;
  let fromCache = 0;
  try {
    for (const name of new Set(speakers.map((s) => s.voice.name))) {
      const voice = model.voices.get(name)!;
      const key = await cacheKey(voice);
      const kept = await options.cache?.get(key);
      if (kept) {
        measured.push(...kept);
        fromCache += kept.length;
        continue;
      }
      const ofVoice: MeasuredSpeaker[] = [];
      let complete = true;
      for (const speaker of speakers.filter((s) => s.voice.name === name)) {
        try {
          const pcm = await synthesizePiperPcm(
            voice,
            REFERENCE_TEXT,
            DEFAULT_VOICE_SETTINGS,
            options.espeakBinary,
            true,
            speaker.id,
          );
          analysis ??= startMeasureThread();
          const features = await analysis.measure(pcm, voice.config.audio.sample_rate);
          ofVoice.push({ model: name, id: speaker.id, language: speaker.voice.language, features });
        } catch (err) {
          complete = false;
          logger.warn({ err, voice: name, speaker: speaker.id }, 'speaker not measured; clones will not start from it');
        }
      }
      measured.push(...ofVoice);
      if (complete) await options.cache?.set(key, ofVoice);
    }
  } finally {
    await analysis?.close();
  }
  logger.info(
    { speakers: measured.length, fromCache, ms: Math.round(performance.now() - started) },
    'installed speakers measured for cloning',
  );
  return measured;
}

/**
 * A voice's key: the SHA-256 of its model and config files, the reference text and the measuring's
 * version. Read in chunks (the hash of a 60 MB model takes some 100 ms, in slices of the event loop).
 */
async function cacheKey(voice: PiperVoice): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`v${MEASURE_VERSION}\n${REFERENCE_TEXT}\n`);
  for (const file of [voice.file, voice.configFile])
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The measuring thread: one request at a time, ended (it runs no native code) when the measuring is done. */
function startMeasureThread(): {
  measure(pcm: Int16Array, rate: number): Promise<SpeakerFeatures>;
  close(): Promise<void>;
} {
  if (!fs.existsSync(THREAD_ENTRY))
    throw new Error(`speaker measuring thread ${THREAD_ENTRY} is missing: build the project (npm run build)`);
  const thread = new Worker(THREAD_ENTRY);
  let next = 0;
  return {
    measure(pcm, rate) {
      const id = next++;
      return new Promise((resolve, reject) => {
        const onMessage = (reply: SpeakerMeasureReply) => {
          if (reply.id !== id) return;
          thread.off('message', onMessage);
          thread.off('error', onError);
          if ('error' in reply) reject(new Error(reply.error));
          else resolve(reply.features);
        };
        const onError = (err: Error) => {
          thread.off('message', onMessage);
          reject(err);
        };
        thread.on('message', onMessage);
        thread.once('error', onError);
        thread.postMessage({ id, pcm, rate } satisfies SpeakerMeasureRequest);
      });
    },
    async close() {
      await thread.terminate();
    },
  };
}
