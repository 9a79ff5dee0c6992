import type { z } from 'zod/v4';
import type { addDictionaryResponse, dictionaryMetadata, dictionaryWithRules } from '@platform/contracts';
import type { PronunciationRule } from '@platform/speech-engine';
import type { DictionaryDoc, DictionaryVersionDoc } from '@platform/speech-store';

const unix = (ms: number) => Math.floor(ms / 1000);

/** A dictionary as list, get and update answer it (the hosted API's metadata). */
export function dictionaryMetadataBody(doc: DictionaryDoc): z.output<typeof dictionaryMetadata> {
  return {
    id: doc._id,
    latest_version_id: doc.latestVersionId,
    latest_version_rules_num: doc.latestRulesNum,
    name: doc.name,
    permission_on_resource: 'admin',
    created_by: doc.accountId,
    creation_time_unix: unix(doc.createdAtMs),
    archived_time_unix: doc.archivedAtMs === null ? null : unix(doc.archivedAtMs),
    description: doc.description,
  };
}

/** A rule as stored, with its matching flags spelled out. */
function ruleBody(rule: PronunciationRule): z.output<typeof dictionaryWithRules>['rules'][number] {
  const match = {
    string_to_replace: rule.string_to_replace,
    case_sensitive: rule.case_sensitive ?? true,
    word_boundaries: rule.word_boundaries ?? true,
  };
  return rule.type === 'alias'
    ? { type: 'alias', ...match, alias: rule.alias }
    : { type: 'phoneme', ...match, phoneme: rule.phoneme, alphabet: rule.alphabet };
}

export function dictionaryWithRulesBody(
  doc: DictionaryDoc,
  version: DictionaryVersionDoc,
): z.output<typeof dictionaryWithRules> {
  return { ...dictionaryMetadataBody(doc), rules: version.rules.map(ruleBody) };
}

/** What a creation answers. */
export function addedDictionaryBody(doc: DictionaryDoc): z.output<typeof addDictionaryResponse> {
  return {
    id: doc._id,
    name: doc.name,
    created_by: doc.accountId,
    creation_time_unix: unix(doc.createdAtMs),
    version_id: doc.latestVersionId,
    version_rules_num: doc.latestRulesNum,
    description: doc.description,
    permission_on_resource: 'admin',
  };
}
