import { PRONUNCIATION_LIMITS, pronunciationRule, type PronunciationRuleInput } from '@platform/contracts';
import { SpeechError } from '@platform/errors';
import type { PhonemeAlphabet, PronunciationRule } from '@platform/speech-engine';
import { readSpeechInput } from '../speech-input';

/**
 * A PLS lexicon (W3C Pronunciation Lexicon Specification 1.0) read into rules, and rules written as
 * one. The reader is a small strict one rather than an XML library: PLS needs elements, attributes,
 * text and the five predefined entities, nothing more, and a reader that has no DTD, entity
 * declarations, external references or processing instructions at all cannot be made to expand or
 * fetch anything (billion laughs, XXE); anything outside that subset is refused with a 400.
 */

const bad = (message: string) => new SpeechError(400, 'bad_request', `The PLS file is not valid: ${message}`);

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function unescape(text: string): string {
  return text.replace(/&([^;&\s]{0,10});/g, (_, name: string) => {
    const numeric = /^#(x[0-9a-fA-F]{1,6}|[0-9]{1,7})$/.exec(name);
    if (numeric) {
      const code = numeric[1]!.startsWith('x') ? parseInt(numeric[1]!.slice(1), 16) : Number(numeric[1]);
      if (code > 0x10ffff || code === 0 || (code >= 0xd800 && code <= 0xdfff))
        throw bad(`character reference &${name};`);
      return String.fromCodePoint(code);
    }
    const value = PREDEFINED[name];
    if (value === undefined) throw bad(`entity &${name.slice(0, 10)}; (only the predefined ones are read)`);
    return value;
  });
}

interface Element {
  name: string;
  attributes: Map<string, string>;
  children: Element[];
  text: string;
}

const TOKEN =
  /<!--[\s\S]*?-->|<(\/?)([A-Za-z_][\w.:-]{0,63})((?:\s+[A-Za-z_][\w.:-]{0,63}\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>|[^<]+/y;
const ATTRIBUTE = /([A-Za-z_][\w.:-]{0,63})\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/g;
const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** The document's root element; anything but plain elements, attributes, text and comments is refused. */
function parseXml(source: string): Element {
  let text = source.replace(/^\uFEFF/, '');
  const declaration = /^<\?xml\s[^?<>]{0,200}\?>/.exec(text);
  if (declaration) text = text.slice(declaration[0].length);
  if (/<!(?!--)/.test(text)) throw bad('a DOCTYPE, entity declaration or CDATA section is not allowed');
  if (text.includes('<?')) throw bad('processing instructions are not allowed');
  const root: Element = { name: '#document', attributes: new Map(), children: [], text: '' };
  const stack: Element[] = [root];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) throw bad(`malformed markup at character ${at}`);
    if (m[0].startsWith('<!--')) continue;
    const top = stack.at(-1)!;
    if (m[2] === undefined) {
      top.text += unescape(m[0]);
      continue;
    }
    if (m[1]) {
      if (top.name !== m[2] || m[4]) throw bad(`</${m[2]}> does not close <${top.name}>`);
      stack.pop();
      continue;
    }
    if (stack.length > 8) throw bad('elements are nested too deeply');
    const attributes = new Map<string, string>();
    for (const a of (m[3] ?? '').matchAll(ATTRIBUTE)) attributes.set(localName(a[1]!), unescape(a[2] ?? a[3] ?? ''));
    const element: Element = { name: m[2], attributes, children: [], text: '' };
    top.children.push(element);
    if (!m[4]) stack.push(element);
  }
  if (stack.length !== 1) throw bad(`<${stack.at(-1)!.name}> is not closed`);
  if (root.text.trim()) throw bad('text outside the root element');
  if (root.children.length !== 1) throw bad('there must be exactly one root element');
  return root.children[0]!;
}

const ALPHABETS: Record<string, PhonemeAlphabet> = {
  ipa: 'ipa',
  'cmu-arpabet': 'cmu-arpabet',
  'x-cmu-arpabet': 'cmu-arpabet',
  'x-arpabet': 'cmu-arpabet',
};

function alphabetOf(value: string | undefined, fallback: string | undefined): PhonemeAlphabet {
  const name = (value ?? fallback ?? 'ipa').toLowerCase();
  const alphabet = ALPHABETS[name];
  if (!alphabet) throw bad(`alphabet ${JSON.stringify(name.slice(0, 20))} (use "ipa" or "cmu-arpabet")`);
  return alphabet;
}

const IGNORED = new Set(['meta', 'metadata', 'example']);

/**
 * The lexicon's rules: each `<lexeme>`'s graphemes become rules, alias rules when it has an `<alias>`,
 * else phoneme rules from its first `<phoneme>` (in its `alphabet`, else the lexicon's). Every rule
 * is checked as a rule the API takes (lengths, phonemes this engine can say); at most
 * `PRONUNCIATION_LIMITS.maxRules`.
 */
export function readPls(bytes: Buffer): PronunciationRuleInput[] {
  if (bytes.length > PRONUNCIATION_LIMITS.maxFileBytes)
    throw bad(`it is larger than ${PRONUNCIATION_LIMITS.maxFileBytes} bytes`);
  let source: string;
  try {
    source = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw bad('it is not UTF-8 text');
  }
  const lexicon = parseXml(source);
  if (localName(lexicon.name) !== 'lexicon') throw bad('the root element must be <lexicon>');
  const lexiconAlphabet = lexicon.attributes.get('alphabet');
  const rules: PronunciationRuleInput[] = [];
  for (const lexeme of lexicon.children) {
    const kind = localName(lexeme.name);
    if (IGNORED.has(kind)) continue;
    if (kind !== 'lexeme') throw bad(`<${kind}> in <lexicon>`);
    const of = (name: string) => lexeme.children.filter((c) => localName(c.name) === name);
    const other = lexeme.children.find(
      (c) => !['grapheme', 'phoneme', 'alias', ...IGNORED].includes(localName(c.name)),
    );
    if (other) throw bad(`<${other.name}> in <lexeme>`);
    const graphemes = of('grapheme').map((g) => g.text.trim());
    if (graphemes.length === 0) throw bad('a <lexeme> without <grapheme>');
    const alias = of('alias')[0];
    const phoneme = of('phoneme')[0];
    for (const string_to_replace of graphemes) {
      if (rules.length >= PRONUNCIATION_LIMITS.maxRules) throw bad(`more than ${PRONUNCIATION_LIMITS.maxRules} rules`);
      const candidate = alias
        ? { type: 'alias', string_to_replace, alias: alias.text.trim() }
        : phoneme
          ? {
              type: 'phoneme',
              string_to_replace,
              phoneme: phoneme.text.trim(),
              alphabet: alphabetOf(phoneme.attributes.get('alphabet'), lexiconAlphabet),
            }
          : null;
      if (!candidate)
        throw bad(`the lexeme ${JSON.stringify(string_to_replace.slice(0, 40))} has neither <alias> nor <phoneme>`);
      try {
        rules.push(readSpeechInput(pronunciationRule, candidate));
      } catch (err) {
        if (err instanceof SpeechError) throw bad(`${JSON.stringify(string_to_replace.slice(0, 40))}: ${err.message}`);
        throw err;
      }
    }
  }
  if (rules.length === 0) throw bad('it has no lexemes');
  return rules;
}

const escape = (text: string) =>
  text.replace(/[<>&"']/g, (c) => `&${Object.entries(PREDEFINED).find(([, v]) => v === c)![0]};`);

/** A version's rules as a PLS lexicon (IPA by default; an ARPAbet rule says so on its `<phoneme>`). */
export function writePls(rules: readonly PronunciationRule[]): string {
  const lexemes = rules.map((rule) => {
    const said =
      rule.type === 'alias'
        ? `<alias>${escape(rule.alias)}</alias>`
        : rule.alphabet === 'ipa'
          ? `<phoneme>${escape(rule.phoneme)}</phoneme>`
          : `<phoneme alphabet="${rule.alphabet}">${escape(rule.phoneme)}</phoneme>`;
    return `  <lexeme>\n    <grapheme>${escape(rule.string_to_replace)}</grapheme>\n    ${said}\n  </lexeme>\n`;
  });
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">\n' +
    lexemes.join('') +
    '</lexicon>\n'
  );
}
