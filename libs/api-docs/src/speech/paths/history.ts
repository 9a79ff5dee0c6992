import { speechErrors } from '../errors';
import { binaryResponse, jsonContent, jsonResponse, okResponse, schemaRef, type JsonObject } from '../json-helpers';
import { audioMediaTypes } from '../schemas/synthesis';
import { anyCredential } from '../security';

const tags = ['History'];
const read = anyCredential('speech:read');

const itemId: JsonObject = {
  name: 'history_item_id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Another account’s item is 404 like an unknown one.',
};
const id = (description: string, max = 64): JsonObject => ({
  type: 'string',
  minLength: 1,
  maxLength: max,
  description,
});
const query = (name: string, description: string, schema: JsonObject): JsonObject => ({
  name,
  in: 'query',
  description,
  schema,
});
const unix = { type: 'integer', minimum: 0, maximum: 999999999999 };

/** An item that does not exist (or is another account's) or has no audio: 404 `error`. */
const missing = { 404: ['error'] } as const;

export const historyPaths = (): JsonObject => ({
  '/v1/history': {
    get: {
      operationId: 'listHistory',
      tags,
      summary: 'The account’s generations, newest first (keyset paging)',
      security: read,
      parameters: [
        query('pageSize', '1–1000, default 100 (also `page_size`).', {
          type: 'integer',
          minimum: 1,
          maximum: 1000,
          default: 100,
        }),
        query('page_size', 'As `pageSize`.', { type: 'integer', minimum: 1, maximum: 1000 }),
        query(
          'start_after_history_item_id',
          'The previous page’s `last_history_item_id`; an unknown id is 400.',
          id('A history item id.'),
        ),
        query('voice_id', 'Only this voice’s generations.', id('A voice id.')),
        query('model_id', 'Only this model’s generations.', id('A model id.')),
        query('date_after_unix', 'Inclusive, Unix seconds.', unix),
        query('date_before_unix', 'Exclusive, Unix seconds.', unix),
        query('sort_direction', '`desc` (default) or `asc`.', { type: 'string', enum: ['asc', 'desc'] }),
        query('search', 'Case-insensitive substring of the text or the voice’s name.', {
          type: 'string',
          maxLength: 200,
        }),
        query('source', '`TTS` (every generation here); `STS`, `Flows`: an empty page.', {
          type: 'string',
          enum: ['TTS', 'STS', 'Flows'],
        }),
      ],
      responses: { 200: jsonResponse('A page of items.', schemaRef('HistoryPage')), ...speechErrors() },
    },
  },
  '/v1/history/{history_item_id}': {
    parameters: [itemId],
    get: {
      operationId: 'getHistoryItem',
      tags,
      summary: 'A history item',
      security: read,
      responses: { 200: jsonResponse('The item.', schemaRef('HistoryItem')), ...speechErrors(missing) },
    },
    delete: {
      operationId: 'deleteHistoryItem',
      tags,
      summary: 'Delete a history item and its audio',
      security: anyCredential('speech:write'),
      responses: { 200: okResponse('Deleted.'), ...speechErrors(missing) },
    },
  },
  '/v1/history/{history_item_id}/audio': {
    parameters: [itemId],
    get: {
      operationId: 'getHistoryAudio',
      tags,
      summary: 'The exact bytes the client received (or, failed or cancelled, what was produced)',
      security: read,
      responses: {
        200: binaryResponse('The audio, with the item’s `content_type`.', audioMediaTypes()),
        ...speechErrors(missing),
      },
    },
  },
  '/v1/history/download': {
    post: {
      operationId: 'downloadHistory',
      tags,
      summary: 'One item’s audio, or a ZIP of several',
      description:
        'Every id must name an item of the account that has audio; otherwise nothing is sent but a 404 naming the first that does not.',
      security: read,
      requestBody: {
        required: true,
        description: 'JSON, at most 128 KiB.',
        content: jsonContent(schemaRef('HistoryDownloadRequest'), { history_item_ids: ['ID1', 'ID2'] }),
      },
      responses: {
        200: binaryResponse(
          'One id: that item’s audio; several: a ZIP (stored entries `<id>.<ext>`).',
          [...audioMediaTypes(), 'application/zip'],
          {
            'Content-Disposition': {
              description: 'ZIP only: `attachment; filename="history.zip"`.',
              schema: { type: 'string' },
            },
          },
        ),
        ...speechErrors({ ...missing, 413: ['text_too_long'] }),
      },
    },
  },
});
