import type { ApiDocument } from '../document';

/** AsyncAPI 3 description of the platform's message interfaces. */
export function asyncApi(): ApiDocument {
  return { asyncapi: '3.0.0', info: { title: 'Platform messages', version: '1.0.0' }, channels: {} };
}
