import { OUTPUT_FORMATS } from '@platform/speech-engine';

/** The media types of the audio, without parameters (`audio/pcm;rate=16000` is `audio/pcm`), from the codecs. */
export const audioMediaTypes = (): string[] => [...new Set(OUTPUT_FORMATS.map((f) => f.contentType.split(';')[0]!))];
