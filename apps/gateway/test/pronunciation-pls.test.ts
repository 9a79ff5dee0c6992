import { SpeechError } from '@platform/errors';
import { readPls, writePls } from '../src/speech/pronunciation/pls';

const lexicon = (body: string, attributes = 'alphabet="ipa"') =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" ${attributes} xml:lang="en-US">${body}</lexicon>`,
  );

const refused = (bytes: Buffer, message: RegExp) => {
  let caught: unknown;
  try {
    readPls(bytes);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(SpeechError);
  expect(caught).toMatchObject({ httpStatus: 400, status: 'bad_request' });
  expect((caught as Error).message).toMatch(message);
};

describe('PLS lexicons', () => {
  it('reads alias and phoneme lexemes, one rule per grapheme, the phoneme’s own alphabet over the lexicon’s', () => {
    const rules = readPls(
      lexicon(
        '<lexeme><grapheme>UN</grapheme><grapheme>U.N.</grapheme><alias>United Nations</alias></lexeme>' +
          '<!-- a comment --><lexeme><grapheme>tomato</grapheme><phoneme>/təˈmɑːtoʊ/</phoneme></lexeme>' +
          '<lexeme><grapheme>AT&amp;T</grapheme><phoneme alphabet="cmu-arpabet">EY1 T IY1 AH0 N T IY1</phoneme></lexeme>',
      ),
    );
    expect(rules).toEqual([
      { type: 'alias', string_to_replace: 'UN', alias: 'United Nations' },
      { type: 'alias', string_to_replace: 'U.N.', alias: 'United Nations' },
      { type: 'phoneme', string_to_replace: 'tomato', phoneme: '/təˈmɑːtoʊ/', alphabet: 'ipa' },
      { type: 'phoneme', string_to_replace: 'AT&T', phoneme: 'EY1 T IY1 AH0 N T IY1', alphabet: 'cmu-arpabet' },
    ]);
  });

  it('writes rules as a lexicon that reads back as the same rules', () => {
    const rules = readPls(
      lexicon(
        '<lexeme><grapheme>R&amp;D</grapheme><alias>research &lt;and&gt; development</alias></lexeme>' +
          '<lexeme><grapheme>nginx</grapheme><phoneme alphabet="cmu-arpabet">EH1 N JH AH0 N EH1 K S</phoneme></lexeme>',
      ),
    );
    expect(readPls(Buffer.from(writePls(rules)))).toEqual(rules);
  });

  it('refuses a DOCTYPE and entity declarations (no entity is ever expanded: billion laughs, XXE)', () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE lexicon [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;">]><lexicon alphabet="ipa"><lexeme><grapheme>&b;</grapheme><alias>x</alias></lexeme></lexicon>`;
    refused(Buffer.from(laughs), /DOCTYPE/);
    const xxe = lexicon('<lexeme><grapheme>&xxe;</grapheme><alias>x</alias></lexeme>');
    refused(xxe, /entity &xxe;/);
    refused(lexicon('<?php x ?><lexeme><grapheme>a</grapheme><alias>b</alias></lexeme>'), /processing instructions/);
  });

  it('refuses malformed, oversized and unusable lexicons with a 400 naming the problem', () => {
    refused(lexicon('<lexeme><grapheme>a</grapheme><alias>b</lexeme>'), /does not close/);
    refused(lexicon('<lexeme><grapheme>a</grapheme></lexeme>'), /neither <alias> nor <phoneme>/);
    refused(lexicon('<lexeme><alias>b</alias></lexeme>'), /without <grapheme>/);
    refused(lexicon(''), /no lexemes/);
    refused(Buffer.from('<speak>hi</speak>'), /root element must be <lexicon>/);
    refused(Buffer.from([0xff, 0xfe, 0x00]), /not UTF-8/);
    refused(
      lexicon('<lexeme><grapheme>a</grapheme><phoneme>☃</phoneme></lexeme>'),
      /"a":.*not one this engine can say/,
    );
    refused(
      lexicon('<lexeme><grapheme>a</grapheme><phoneme>x</phoneme></lexeme>', 'alphabet="x-sampa"'),
      /alphabet "x-sampa"/,
    );
    refused(lexicon(`<lexeme><grapheme>${'a'.repeat(101)}</grapheme><alias>b</alias></lexeme>`), /longer than 100/);
    const many = Array.from({ length: 1001 }, (_, i) => `<lexeme><grapheme>w${i}</grapheme><alias>b</alias></lexeme>`);
    refused(lexicon(many.join('')), /more than 1000 rules/);
    refused(Buffer.alloc(1024 * 1024 + 1, 0x20), /larger than/);
  });
});
