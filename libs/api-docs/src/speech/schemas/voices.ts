export const VOICE_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
