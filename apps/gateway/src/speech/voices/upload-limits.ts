/** Bounds of a voice upload; every one is enforced while the request streams in. */
export const UPLOAD_LIMITS = {
  /** Files per request. */
  maxFiles: 10,
  /** Bytes per file. */
  maxFileBytes: 10 * 1024 * 1024,
  /** Bytes of all files of one request together. */
  maxTotalBytes: 40 * 1024 * 1024,
  /** Seconds per file, and at least this many seconds per file. */
  maxFileSeconds: 120,
  minFileSeconds: 1,
  /** Text fields: how many, and bytes each. */
  maxFields: 20,
  maxFieldBytes: 8 * 1024,
  maxNameChars: 100,
  maxDescriptionChars: 1000,
  maxLabels: 20,
  maxLabelKeyChars: 50,
  maxLabelValueChars: 200,
} as const;
