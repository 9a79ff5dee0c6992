import { historyItemIdParam, historyPageQuery } from '@platform/contracts';
import { pathParameter, queryParameters } from '../../contract-schemas';
import { speechErrors } from '../errors';
import { binaryResponse, jsonContent, jsonResponse, okResponse, schemaRef, type JsonObject } from '../json-helpers';
import { audioMediaTypes } from '../schemas/synthesis';
import { anyCredential } from '../security';

const tags = ['History'];
const read = anyCredential('speech:read');

const itemId = pathParameter('history_item_id', historyItemIdParam);
/** An item that does not exist (or is another account's) or has no audio: 404 `error`. */
const missing = { 404: ['error'] } as const;

export const historyPaths = (): JsonObject => ({
  '/v1/history': {
    get: {
      operationId: 'listHistory',
      tags,
      summary: 'The account’s generations, newest first (keyset paging)',
      security: read,
      parameters: [...queryParameters(historyPageQuery)],
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
