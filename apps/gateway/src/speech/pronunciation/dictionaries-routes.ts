import express, { Router, type Request } from 'express';
import {
  PRONUNCIATION_LIMITS,
  addFromFileFields,
  addFromRulesBody,
  dictionaryIdParam,
  dictionaryPageQuery,
  removeRulesBody,
  rulesBody,
  updateDictionaryBody,
  type PronunciationRuleInput,
} from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import type { Logger } from '@platform/logger';
import type { PronunciationRule } from '@platform/speech-engine';
import {
  changeDictionaryRules,
  createDictionary,
  dictionaryNotFound,
  findDictionary,
  findDictionaryVersion,
  listDictionaries,
  updateDictionary,
  type SpeechStore,
} from '@platform/speech-store';
import { requestCaller } from '../caller';
import { speechErrorHandler } from '../speech-errors';
import { readSpeechInput } from '../speech-input';
import { parseVoiceUpload, type UploadForm } from '../voices/multipart';
import { addedDictionaryBody, dictionaryMetadataBody, dictionaryWithRulesBody } from './dictionary-body';
import { readPls, writePls } from './pls';

/** The PLS upload: one file, a few text fields, each bounded while it streams in. */
const PLS_FORM: UploadForm = {
  limits: {
    maxFiles: 1,
    maxFileBytes: PRONUNCIATION_LIMITS.maxFileBytes,
    maxTotalBytes: PRONUNCIATION_LIMITS.maxFileBytes,
    maxFields: 5,
    maxFieldBytes: 4 * PRONUNCIATION_LIMITS.maxDescriptionChars,
  },
  fileField: 'file',
  per: 'dictionary',
};

/** Rules as stored: the contract's, with nothing the engine does not read. */
const stored = (rules: readonly PronunciationRuleInput[]): PronunciationRule[] => rules.map((r) => ({ ...r }));

/** Rules added over a version's: a rule for a string already there replaces it (the hosted API's rule). */
function addRules(current: PronunciationRule[], added: PronunciationRule[]): PronunciationRule[] {
  const replaced = new Set(added.map((r) => r.string_to_replace));
  return [...current.filter((r) => !replaced.has(r.string_to_replace)), ...added];
}

const idParam = (req: Request, name: string) => {
  const value = String(req.params[name]);
  if (!dictionaryIdParam.safeParse(value).success) throw dictionaryNotFound(value);
  return value;
};

/**
 * `/pronunciation-dictionaries`: create (from rules or a PLS lexicon), list, get, download a version's
 * PLS, change the rules (each change a new version), rename and archive. Every dictionary belongs to
 * the account that made it: another account's is 404, as an unknown one.
 */
export function pronunciationDictionaryRoutes(deps: { store: SpeechStore; logger: Logger }): Router {
  const { store } = deps;
  const router = Router();
  const json = express.json({ limit: '512kb', type: () => true });
  const base = '/pronunciation-dictionaries';

  router.post(`${base}/add-from-rules`, json, async (req, res) => {
    const caller = requestCaller(req, 'speech:write');
    const body = readSpeechInput(addFromRulesBody, req.body);
    const { dictionary } = await createDictionary(store, {
      accountId: caller.sub,
      ...(caller.plan !== undefined ? { plan: caller.plan } : {}),
      name: body.name,
      description: body.description ?? null,
      rules: stored(body.rules),
    });
    res.json(addedDictionaryBody(dictionary));
  });

  router.post(`${base}/add-from-file`, async (req, res) => {
    const caller = requestCaller(req, 'speech:write');
    const upload = await parseVoiceUpload(req, PLS_FORM);
    const fields = readSpeechInput(addFromFileFields, Object.fromEntries(upload.fields));
    const file = upload.files[0];
    if (!file) throw new SpeechError(400, 'bad_request', 'The PLS lexicon must come in the field "file".');
    const rules = readPls(file.bytes);
    const { dictionary } = await createDictionary(store, {
      accountId: caller.sub,
      ...(caller.plan !== undefined ? { plan: caller.plan } : {}),
      name: fields.name,
      description: fields.description ?? null,
      rules: stored(rules),
    });
    res.json(addedDictionaryBody(dictionary));
  });

  router.get(base, async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const query = readSpeechInput(dictionaryPageQuery, req.query);
    const page = await listDictionaries(store, {
      accountId: caller.sub,
      ...(query.cursor ? { cursor: query.cursor } : {}),
      pageSize: query.page_size ? Number(query.page_size) : PRONUNCIATION_LIMITS.defaultPageSize,
      sort: query.sort ?? 'creation_time_unix',
      direction: query.sort_direction ?? 'descending',
      includeArchived: query.include_archived?.toLowerCase() === 'true',
    });
    res.json({
      pronunciation_dictionaries: page.items.map(dictionaryMetadataBody),
      next_cursor: page.nextCursor,
      has_more: page.nextCursor !== null,
    });
  });

  router.get(`${base}/:id`, async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const dictionary = await findDictionary(store, caller.sub, idParam(req, 'id'));
    const version = await findDictionaryVersion(store, caller.sub, dictionary._id, dictionary.latestVersionId);
    res.json(dictionaryWithRulesBody(dictionary, version));
  });

  router.patch(`${base}/:id`, json, async (req, res) => {
    const caller = requestCaller(req, 'speech:write');
    const body = readSpeechInput(updateDictionaryBody, req.body);
    res.json(dictionaryMetadataBody(await updateDictionary(store, caller.sub, idParam(req, 'id'), body)));
  });

  router.get(`${base}/:id/:versionId/download`, async (req, res) => {
    const caller = requestCaller(req, 'speech:read');
    const id = idParam(req, 'id');
    const version = await findDictionaryVersion(store, caller.sub, id, String(req.params.versionId));
    res
      .status(200)
      .set('Content-Type', 'application/pls+xml')
      .set('Content-Disposition', `attachment; filename="${id}_${version._id}.pls"`)
      .send(writePls(version.rules));
  });

  const rulesChange = (
    path: string,
    change: (body: unknown) => (current: PronunciationRule[]) => PronunciationRule[],
  ) =>
    router.post(`${base}/:id/${path}`, json, async (req, res) => {
      const caller = requestCaller(req, 'speech:write');
      const apply = change(req.body);
      const doc = await changeDictionaryRules(
        store,
        caller.sub,
        idParam(req, 'id'),
        apply,
        PRONUNCIATION_LIMITS.maxRules,
      );
      res.json({ id: doc._id, version_id: doc.latestVersionId, version_rules_num: doc.latestRulesNum });
    });
  rulesChange('add-rules', (body) => {
    const added = stored(readSpeechInput(rulesBody, body).rules);
    return (current) => addRules(current, added);
  });
  rulesChange('set-rules', (body) => {
    const rules = stored(readSpeechInput(rulesBody, body).rules);
    return () => rules;
  });
  rulesChange('remove-rules', (body) => {
    const removed = new Set(readSpeechInput(removeRulesBody, body).rule_strings);
    return (current) => current.filter((r) => !removed.has(r.string_to_replace));
  });

  router.use(speechErrorHandler(deps.logger));
  return router;
}
