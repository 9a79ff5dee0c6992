/** One sample of a scrape in the Prometheus text exposition format: `name{label="value",...} value`. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the samples of a Prometheus text exposition (comments and blank lines skipped). */
export function parseMetrics(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL))
      labels[key!] = value!.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** `GET <metricsUrl>/metrics`, parsed; throws unless it answers 200 in the text format. */
export async function scrapeMetrics(metricsUrl: string): Promise<MetricSample[]> {
  const res = await fetch(`${metricsUrl}/metrics`);
  const text = await res.text();
  if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/plain')) {
    throw new Error(
      `${metricsUrl}/metrics answered ${res.status} ${res.headers.get('content-type') ?? ''}: ${text.slice(0, 200)}`,
    );
  }
  return parseMetrics(text);
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none match). */
export function sumOf(samples: MetricSample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}
