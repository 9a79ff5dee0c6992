import { z } from 'zod/v4';

/**
 * Where our interface document and the hosted speech API answer in different shapes, which one a
 * client asks for: `?shape=` (docs/speech.md, "Response shapes").
 */
export const RESPONSE_SHAPES = ['document', 'hosted'] as const;
export type ResponseShape = (typeof RESPONSE_SHAPES)[number];

/**
 * `?shape=hosted|document`, on REST and on the WebSocket's upgrade; anything else (a repeated one too)
 * is a 400. Not given: decided by `X-Fern-SDK-Name`.
 */
export const responseShapeParam = z
  .enum(RESPONSE_SHAPES, { error: 'shape must be "hosted" or "document"' })
  .optional()
  .meta({ description: 'Which shape to answer in (else decided by `X-Fern-SDK-Name`).' });
