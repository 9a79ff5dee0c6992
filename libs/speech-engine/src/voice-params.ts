/**
 * Engine parameters of a voice: what makes it sound like itself, the eSpeak NG settings a voice is
 * made of. Premade voices carry fixed values chosen by hand (premade-voices.ts); a cloned voice is
 * a point in this space derived from the analysis of its samples (libs/voice-analysis), stored with
 * the voice (libs/speech-store) and carried by each job (libs/speech-jobs).
 */
export interface EngineVoiceParams {
  /** eSpeak NG language voice (`en-us`, `de`, …): the voice's own language and accent. */
  voice: string;
  /** eSpeak NG variant file (`m3`, `f2`, …), appended as `voice+variant`: timbre — formants, breathiness, roughness. */
  variant: string;
  /** Base pitch (`-p`), eSpeak's 0–99 scale (50 = the variant's own pitch). */
  pitch: number;
  /** Intonation range 0–99 (50 = eSpeak's default), applied through SSML `<prosody range>`. */
  pitchRange: number;
  /** Speaking rate (`-s`) in words per minute, 80–450 (eSpeak default 175). */
  speed: number;
  /** Amplitude (`-a`) 0–200 (eSpeak default 100). */
  amplitude: number;
  /** Extra pause between words, in units of 10 ms (default 0). */
  wordGap?: number;
  /**
   * The neural voice this voice is (Piper voice file name), spoken uncoloured: the model's own
   * speaker (`speaker.id` of it for a multi-speaker model).
   */
  neural?: string;
  /**
   * The installed Piper speaker this voice speaks with on the neural model (a catalogue voice's, or
   * the one a clone was assigned): its model file name and speaker id (0 for a single-speaker model).
   * Absent: the first installed voice of the request's language (catalogue/voice-catalogue.ts).
   */
  speaker?: { model: string; id: number };
  /** A fixed colour for the neural speaker (a catalogue voice's `colour`); else the one its pitch implies. */
  colour?: { pitchHz: number; formantRatio: number };
}
