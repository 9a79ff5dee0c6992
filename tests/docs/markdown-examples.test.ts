import { curlsWithoutFail, extractExamples } from './markdown-examples';

const doc = [
  'Intro',
  '```sh',
  'export BASE=http://127.0.0.1:8080',
  '```',
  '',
  '<!-- example: skip — needs a browser -->',
  '',
  '```js',
  'console.log(1);',
  '```',
  '```json',
  '{"not": "an example"}',
  '```',
  '<!-- example: file — client-assertion.mjs -->',
  '```mjs',
  'export {};',
  '```',
].join('\n');

describe('extractExamples', () => {
  it('returns the shell and JavaScript blocks in order, with their line and the mark before them', () => {
    expect(extractExamples(doc, 'doc.md')).toEqual([
      { file: 'doc.md', line: 2, language: 'shell', code: 'export BASE=http://127.0.0.1:8080' },
      {
        file: 'doc.md',
        line: 8,
        language: 'js',
        code: 'console.log(1);',
        mark: { kind: 'skip', reason: 'needs a browser' },
      },
      {
        file: 'doc.md',
        line: 15,
        language: 'js',
        code: 'export {};',
        mark: { kind: 'file', reason: 'client-assertion.mjs' },
      },
    ]);
  });

  it('refuses a mark without a reason rather than running the block', () => {
    expect(() => extractExamples('<!-- example: skip -->\n```sh\ntrue\n```', 'doc.md')).toThrow(/doc\.md:1/);
  });

  it('refuses a block that is never closed', () => {
    expect(() => extractExamples('```sh\ntrue', 'doc.md')).toThrow(/never closed/);
  });
});

describe('curlsWithoutFail', () => {
  it('names the curl commands that would exit 0 on an HTTP error, across continued lines', () => {
    const code = [
      'curl -s $BASE/v1/models \\',
      '  -H "xi-api-key: $KEY"',
      'curl -s --fail-with-body $BASE/v1/voices',
      'curl -sfN $BASE/v1/x',
      "curl -s -o /dev/null -w '%{http_code}' $BASE/v1/y",
      'curl -s -F files=@a.wav $BASE/v1/voices/add',
      '# curl in a comment',
    ].join('\n');
    expect(curlsWithoutFail(code)).toEqual([
      'curl -s $BASE/v1/models    -H "xi-api-key: $KEY"',
      'curl -s -F files=@a.wav $BASE/v1/voices/add',
    ]);
  });
});
