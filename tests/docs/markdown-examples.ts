/**
 * The copy-paste examples of a markdown document: its fenced shell and JavaScript blocks, in order, each
 * with the mark a writer put right before it when the block cannot run as written
 * (`<!-- example: skip — needs a browser -->`; the word after `example:` says why it is left out: `skip`,
 * `output`, `fragment`), or `<!-- example: file — client-assertion.mjs -->` for a script the reader saves under
 * that name for later blocks to run. Other fences (json, http, python, html, bare) are reference text, not examples.
 */
export type ExampleLanguage = 'shell' | 'js';

export interface Example {
  /** The document, as given. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: ExampleLanguage;
  code: string;
  /** Present when the block is marked as not runnable. */
  mark?: { kind: string; reason: string };
}

const LANGUAGES: Record<string, ExampleLanguage> = {
  sh: 'shell',
  bash: 'shell',
  shell: 'shell',
  js: 'js',
  mjs: 'js',
  ts: 'js',
};

const FENCE = /^(`{3,})\s*([\w-]*)/;
const MARK = /^<!--\s*example:\s*([\w ]+?)\s+[—–]\s+(.+?)\s*-->$/;
const BARE_MARK = /^<!--\s*example:/;

export function extractExamples(markdown: string, file: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open?.[1]) continue;
    const fence = open[1];
    const end = lines.findIndex((l, j) => j > i && l.trimEnd() === fence);
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block is never closed`);
    const language = LANGUAGES[(open[2] ?? '').toLowerCase()];
    if (language) {
      const mark = markBefore(lines, i, file);
      examples.push({
        file,
        line: i + 1,
        language,
        code: lines.slice(i + 1, end).join('\n'),
        ...(mark ? { mark } : {}),
      });
    }
    i = end;
  }
  return examples;
}

/** The mark on the nearest non-blank line above the fence; a malformed mark is an error, not a silent run. */
function markBefore(lines: string[], fenceIndex: number, file: string): Example['mark'] {
  let j = fenceIndex - 1;
  while (j >= 0 && (lines[j] ?? '').trim() === '') j -= 1;
  const text = (lines[j] ?? '').trim();
  if (!BARE_MARK.test(text)) return undefined;
  const match = MARK.exec(text);
  if (!match?.[1] || !match[2]) {
    throw new Error(`${file}:${j + 1}: write an example mark as "<!-- example: <kind> — <reason> -->"`);
  }
  return { kind: match[1], reason: match[2] };
}

/**
 * The curl commands of a shell block that would exit 0 on an HTTP error: a reader (and the test) must see
 * a failed request fail, so every curl says `-f`/`--fail`/`--fail-with-body` or prints the status (`-w`).
 */
export function curlsWithoutFail(code: string): string[] {
  const commands = code.replace(/\\\n/g, ' ').split('\n');
  return commands
    .filter((command) => /(^|[\s;|&(])curl\s/.test(command.replace(/#.*$/, '')))
    .filter((command) => !/\s(-[a-zA-Z]*f[a-zA-Z]*|--fail(-with-body)?|-w|--write-out)(\s|$)/.test(command))
    .map((command) => command.trim());
}
