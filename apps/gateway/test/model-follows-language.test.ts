import { modelCatalogue } from '@platform/speech-engine';
import { readOpenRequest } from '../src/speech/stream-input/open-request';
import { parseTtsRequest } from '../src/speech/tts/parse-request';

/**
 * Whether a request's model follows its language (the hosted API's model ids) or is the one named
 * (ours), on REST and on the WebSocket, where the id may sit in the path or the query.
 */
const catalogue = modelCatalogue({ neural: true });
const RACHEL = '21m00Tcm4TlvDq8ikWAM';

describe('a hosted model id follows the language; our own ids do not', () => {
  it('in a REST body', () => {
    const hosted = parseTtsRequest({ text: 'hi', model_id: 'eleven_turbo_v2_5' }, {}, 100, catalogue);
    expect(hosted).toMatchObject({ model: { model_id: 'piper_en_us_v1' }, modelFollowsLanguage: true });
    const ours = parseTtsRequest({ text: 'hi', model_id: 'piper_en_us_v1' }, {}, 100, catalogue);
    expect(ours).toMatchObject({ model: { model_id: 'piper_en_us_v1' }, modelFollowsLanguage: false });
    expect(parseTtsRequest({ text: 'hi' }, {}, 100, catalogue)).toMatchObject({
      model: { model_id: 'espeak_ng_v1' },
      modelFollowsLanguage: false,
    });
  });
  it('in the WebSocket path or query', () => {
    const bySegment = readOpenRequest(
      new URLSearchParams(`voice_id=${RACHEL}`),
      'eleven_flash_v2_5',
      catalogue,
      {},
      100,
    );
    expect(bySegment.request).toMatchObject({ model: { model_id: 'piper_en_us_v1' }, modelFollowsLanguage: true });
    const byQuery = readOpenRequest(new URLSearchParams('model_id=eleven_v3'), RACHEL, catalogue, {}, 100);
    expect(byQuery.request).toMatchObject({ model: { model_id: 'piper_en_us_v1' }, modelFollowsLanguage: true });
    const ours = readOpenRequest(new URLSearchParams('model_id=espeak_ng_v1'), RACHEL, catalogue, {}, 100);
    expect(ours.request).toMatchObject({ model: { model_id: 'espeak_ng_v1' }, modelFollowsLanguage: false });
  });
});
