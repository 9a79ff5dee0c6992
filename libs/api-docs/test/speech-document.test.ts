import SwaggerParser from '@apidevtools/swagger-parser';
import {
  audioMessage,
  endOfInputMessage,
  finalMessage,
  initialiseMessage,
  textMessage,
  historyItemIdParam,
  jsonSchemaOf,
  openAiErrorBody,
  openAiSpeechRequest,
  responseShapeParam,
  sampleIdParam,
  voiceSettingsEditBody,
  speechErrorBody,
  statusOk,
  streamInputQuery,
  synthesisVoiceIdParam,
  VOICE_UPLOAD_LIMITS,
  voiceAddForm,
  voiceEditForm,
  voiceIdParam,
} from '@platform/contracts';
import { OUTPUT_FORMAT_ALIASES, OUTPUT_FORMATS } from '@platform/speech-engine';
import { speechOpenApi } from '../src/speech';
import { streamInputChannel } from '../src/asyncapi/speech-stream-input';
import { MAX_TEXT_CHARS } from '../src/speech/schemas/synthesis';

type Operation = { operationId?: string; responses?: Record<string, unknown>; security?: unknown[] };

const operations = () =>
  Object.entries(speechOpenApi().paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== 'parameters')
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );

describe('the speech API document', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    await expect(
      SwaggerParser.validate(
        structuredClone(speechOpenApi()) as unknown as Parameters<typeof SwaggerParser.validate>[0],
      ),
    ).resolves.toBeDefined();
  });

  it('describes every route of the gateway’s speech module, each with an operationId', () => {
    expect(
      operations()
        .map(({ method, path, operation }) => `${method} ${path} ${operation.operationId ?? '(none)'}`)
        .sort(),
    ).toEqual(
      [
        'POST /v1/text-to-speech/{voice_id} textToSpeech',
        'POST /v1/audio/speech createSpeechOpenAi',
        'POST /v1/text-to-speech/{voice_id}/stream textToSpeechStream',
        'POST /v1/text-to-speech/{voice_id}/with-timestamps textToSpeechWithTimestamps',
        'POST /v1/text-to-speech/{voice_id}/stream/with-timestamps textToSpeechStreamWithTimestamps',
        'GET /v1/voice-previews/{file} getVoicePreview',
        'GET /v1/models listModels',
        'GET /v1/voices listVoices',
        'GET /v2/voices searchVoices',
        'GET /v1/voices/settings/default getDefaultVoiceSettings',
        'POST /v1/voices/add addVoice',
        'GET /v1/voices/{voice_id} getVoice',
        'DELETE /v1/voices/{voice_id} deleteVoice',
        'POST /v1/voices/{voice_id}/edit editVoice',
        'GET /v1/voices/{voice_id}/settings getVoiceSettings',
        'POST /v1/voices/{voice_id}/settings/edit editVoiceSettings',
        'GET /v1/voices/{voice_id}/samples/{sample_id}/audio getVoiceSampleAudio',
        'GET /v1/history listHistory',
        'GET /v1/history/{history_item_id} getHistoryItem',
        'DELETE /v1/history/{history_item_id} deleteHistoryItem',
        'GET /v1/history/{history_item_id}/audio getHistoryAudio',
        'POST /v1/history/download downloadHistory',
        'POST /v1/pronunciation-dictionaries/add-from-rules addPronunciationDictionaryFromRules',
        'POST /v1/pronunciation-dictionaries/add-from-file addPronunciationDictionaryFromFile',
        'GET /v1/pronunciation-dictionaries listPronunciationDictionaries',
        'GET /v1/pronunciation-dictionaries/{pronunciation_dictionary_id} getPronunciationDictionary',
        'PATCH /v1/pronunciation-dictionaries/{pronunciation_dictionary_id} updatePronunciationDictionary',
        'GET /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/{version_id}/download downloadPronunciationDictionaryVersion',
        'POST /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/add-rules addPronunciationRules',
        'POST /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/set-rules setPronunciationRules',
        'POST /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/remove-rules removePronunciationRules',
        'GET /v1/user getUser',
        'GET /v1/user/subscription getSubscription',
        'GET /v1/api-keys listApiKeys',
        'POST /v1/api-keys createApiKey',
        'DELETE /v1/api-keys/{key_id} revokeApiKey',
      ].sort(),
    );
  });

  it('gives every operation a success, the gateway’s own errors and a security requirement', () => {
    for (const { method, path, operation } of operations()) {
      const codes = Object.keys(operation.responses ?? {});
      expect({ at: `${method} ${path}`, success: codes.some((c) => c.startsWith('2')) }).toEqual({
        at: `${method} ${path}`,
        success: true,
      });
      expect({ at: `${method} ${path}`, codes }).toEqual({
        at: `${method} ${path}`,
        codes: expect.arrayContaining(['400', '401', '403', '429', '500', '503']),
      });
      expect(operation.security?.length).toBeGreaterThan(0);
    }
  });

  it('lists the engine’s output formats and refuses none of them', () => {
    const schemas = (speechOpenApi().components as { schemas: Record<string, { enum?: string[] }> }).schemas;
    expect(schemas.OutputFormat?.enum).toEqual([
      ...OUTPUT_FORMATS.map((f) => f.id),
      ...Object.keys(OUTPUT_FORMAT_ALIASES),
    ]);
  });

  it('writes the voice forms from the contracts the gateway checks them with, files as its parser bounds them', () => {
    const schemas = (speechOpenApi().components as { schemas: Record<string, Record<string, unknown>> }).schemas;
    for (const [name, contract] of [
      ['VoiceAddForm', voiceAddForm],
      ['VoiceEditForm', voiceEditForm],
    ] as const) {
      const { properties, required } = jsonSchemaOf(contract, 'input') as { properties: object; required?: string[] };
      expect(schemas[name]).toMatchObject({
        properties: { ...properties, files: { maxItems: VOICE_UPLOAD_LIMITS.maxFiles } },
      });
      expect(schemas[name]?.required).toEqual(name === 'VoiceAddForm' ? [...required!, 'files'] : undefined);
    }
  });

  it("writes OpenAI's speech API from its contract: the request, and every error in OpenAI's shape", () => {
    const document = speechOpenApi() as unknown as {
      components: { schemas: Record<string, unknown> };
      paths: Record<string, { post: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> } }>;
    };
    expect(document.components.schemas.OpenAiSpeechRequest).toEqual(
      jsonSchemaOf(openAiSpeechRequest(MAX_TEXT_CHARS), 'input'),
    );
    expect(document.components.schemas.OpenAiError).toEqual(jsonSchemaOf(openAiErrorBody));
    const responses = document.paths['/v1/audio/speech']!.post.responses;
    const errors = Object.entries(responses).filter(([code]) => !code.startsWith('2'));
    expect(errors.map(([code]) => code)).toEqual(['400', '401', '403', '404', '413', '429', '500', '502', '503']);
    for (const [code, response] of errors)
      expect({ code, schema: response.content?.['application/json']?.schema }).toEqual({
        code,
        schema: { $ref: '#/components/schemas/OpenAiError' },
      });
  });

  it('writes the error body, {status: "ok"} and the path and shape parameters from the speech contracts', () => {
    type Parameter = { name: string; schema: unknown };
    const document = speechOpenApi() as unknown as {
      components: { schemas: Record<string, unknown> };
      paths: Record<string, { parameters?: Parameter[] } & Record<string, { parameters?: Parameter[] }>>;
    };
    expect(document.components.schemas.SpeechError).toEqual(jsonSchemaOf(speechErrorBody));
    expect(document.components.schemas.StatusOk).toEqual(jsonSchemaOf(statusOk));
    /** The parameter's schema, of the path or of its operation; the description stands beside it. */
    const schemaOf = (path: string, method: string, name: string) =>
      [...(document.paths[path]?.parameters ?? []), ...(document.paths[path]?.[method]?.parameters ?? [])].find(
        (p) => p.name === name,
      )?.schema;
    const contract = (param: Parameters<typeof jsonSchemaOf>[0]) => {
      const { description: _description, ...schema } = jsonSchemaOf(param, 'input');
      return schema;
    };
    expect(schemaOf('/v1/text-to-speech/{voice_id}', 'post', 'voice_id')).toEqual(contract(synthesisVoiceIdParam));
    expect(schemaOf('/v1/voices/{voice_id}', 'get', 'voice_id')).toEqual(contract(voiceIdParam));
    expect(schemaOf('/v1/history/{history_item_id}', 'get', 'history_item_id')).toEqual(contract(historyItemIdParam));
    expect(schemaOf('/v1/models', 'get', 'shape')).toEqual(contract(responseShapeParam));
    expect(schemaOf('/v1/voices/{voice_id}/samples/{sample_id}/audio', 'get', 'sample_id')).toEqual(
      contract(sampleIdParam),
    );
    const settingsEdit = document.paths['/v1/voices/{voice_id}/settings/edit']?.post as unknown as {
      requestBody: { content: { 'application/json': { schema: unknown } } };
    };
    expect(settingsEdit.requestBody.content['application/json'].schema).toEqual(
      jsonSchemaOf(voiceSettingsEditBody, 'input'),
    );
  });

  it('writes the stream-input messages of the AsyncAPI document from the contracts the gateway reads and writes', () => {
    const { messages } = streamInputChannel as { messages: Record<string, { payload: unknown }> };
    expect(messages.initialise?.payload).toEqual(jsonSchemaOf(initialiseMessage, 'input'));
    expect(messages.text?.payload).toEqual(jsonSchemaOf(textMessage(MAX_TEXT_CHARS), 'input'));
    expect(messages.endOfInput?.payload).toEqual(jsonSchemaOf(endOfInputMessage, 'input'));
    expect(messages.audioMessage?.payload).toEqual(jsonSchemaOf(audioMessage));
    expect(messages.final?.payload).toEqual(jsonSchemaOf(finalMessage));
    expect(messages.error?.payload).toEqual(jsonSchemaOf(speechErrorBody));
    const { bindings } = streamInputChannel as { bindings: { ws: { query: unknown } } };
    expect(bindings.ws.query).toEqual(jsonSchemaOf(streamInputQuery(MAX_TEXT_CHARS), 'input'));
  });
});
