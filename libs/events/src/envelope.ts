import { randomUUID } from 'node:crypto';
import type { ContentEntity } from './topics';
import type { ContentEventDataMap } from './snapshots';

/**
 * CloudEvents 1.0 structured-mode JSON envelope (docs/architecture.md, "Content events").
 * `dataschema` versions the `data` shape: a breaking change gets a new URN (v2) and consumers
 * reject versions they do not know instead of misreading them.
 */
export const CONTENT_EVENT_SOURCE = '/content';
export const CONTENT_EVENT_SCHEMA_V1 = 'urn:platform:content-events:v1';
export const CONTENT_EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'post.created',
  'post.updated',
  'post.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
] as const;
export type ContentEventType = (typeof CONTENT_EVENT_TYPES)[number];

export interface CloudEvent<T extends ContentEventType = ContentEventType> {
  specversion: '1.0';
  /** Unique per event; consumers dedupe on it (the relay delivers at least once). */
  id: string;
  source: typeof CONTENT_EVENT_SOURCE;
  type: T;
  /** Global id of the entity; also the Kafka message key. */
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  dataschema: typeof CONTENT_EVENT_SCHEMA_V1;
  data: ContentEventDataMap[T];
}

export type ContentEvent = { [T in ContentEventType]: CloudEvent<T> }[ContentEventType];

export function entityOfType(type: ContentEventType): ContentEntity {
  return type.slice(0, type.indexOf('.')) as ContentEntity;
}

export function buildContentEvent<T extends ContentEventType>(
  type: T,
  data: ContentEventDataMap[T],
  options: { id?: string; time?: Date } = {},
): CloudEvent<T> {
  return {
    specversion: '1.0',
    id: options.id ?? randomUUID(),
    source: CONTENT_EVENT_SOURCE,
    type,
    subject: data.id,
    time: (options.time ?? new Date()).toISOString(),
    datacontenttype: 'application/json',
    dataschema: CONTENT_EVENT_SCHEMA_V1,
    data,
  };
}

export class EventParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventParseError';
  }
}

const TYPES: ReadonlySet<string> = new Set(CONTENT_EVENT_TYPES);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a Kafka message value into an event, checking the envelope (not every data field:
 * the producer is ours and typed). Throws EventParseError on anything else, so a consumer can
 * log and skip a poison message instead of crashing.
 */
export function parseContentEvent(value: Buffer | string | null | undefined): ContentEvent {
  if (value === null || value === undefined) throw new EventParseError('empty message');
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
  } catch {
    throw new EventParseError('message is not JSON');
  }
  if (!isRecord(parsed)) throw new EventParseError('event is not an object');
  if (parsed.specversion !== '1.0') throw new EventParseError('unsupported specversion');
  if (parsed.dataschema !== CONTENT_EVENT_SCHEMA_V1) throw new EventParseError('unsupported dataschema');
  if (typeof parsed.type !== 'string' || !TYPES.has(parsed.type)) throw new EventParseError('unknown event type');
  for (const field of ['id', 'subject', 'time', 'source'] as const) {
    if (typeof parsed[field] !== 'string' || (parsed[field] as string).length === 0) {
      throw new EventParseError(`${field} missing`);
    }
  }
  if (!isRecord(parsed.data) || typeof parsed.data.id !== 'string') throw new EventParseError('data missing');
  return parsed as unknown as ContentEvent;
}

export function serializeContentEvent(event: ContentEvent): string {
  return JSON.stringify(event);
}
