import { freePort, scrapeMetrics, sumOf } from '@platform/testing';
import { contentTopic } from '@platform/events';
import { api, eventually, seedUser, startContent, stopContent, type RunningContent } from './helpers';

/**
 * The outbox's Prometheus metrics on content's METRICS_PORT listener (docs/operations.md, "Metrics"),
 * read as Prometheus reads them: a relaying instance counts what it published and how long it took;
 * an instance whose relay is off shows the events waiting in its outbox.
 */
let relaying: RunningContent | undefined;
let quiet: RunningContent | undefined;

async function started(env: Record<string, string>): Promise<{ app: RunningContent; metrics: string }> {
  const port = await freePort();
  const app = await startContent({ METRICS_PORT: String(port), OUTBOX_POLL_MS: '50', ...env });
  return { app, metrics: `http://127.0.0.1:${port}` };
}

afterAll(async () => {
  await Promise.all([stopContent(relaying), stopContent(quiet)]);
}, 60_000);

it('a post written is published once and counted under its topic, with its relay delay observed', async () => {
  const { app, metrics } = await started({});
  relaying = app;
  const topic = contentTopic('post', app.topicPrefix);
  const before = await scrapeMetrics(metrics);
  expect(sumOf(before, 'content_outbox_published_total', { topic })).toBe(0);
  const delays = sumOf(before, 'content_outbox_relay_delay_seconds_count');

  const user = await seedUser(app);
  const created = await api(app, 'POST', '/api/v1/posts', { caller: user, body: { title: 'Counted', content: 'c' } });
  expect(created.status).toBe(201);

  const after = await eventually(
    async () => {
      const samples = await scrapeMetrics(metrics);
      return sumOf(samples, 'content_outbox_published_total', { topic }) >= 1 ? samples : undefined;
    },
    20_000,
    'the post event counted as published',
  );
  expect(sumOf(after, 'content_outbox_published_total', { topic })).toBe(1);
  expect(sumOf(after, 'content_outbox_relay_delay_seconds_count')).toBe(delays + 1);
  expect(sumOf(after, 'content_outbox_relay_delay_seconds_sum')).toBeGreaterThan(0);
  // Published and deleted: nothing waits.
  await eventually(
    async () => (sumOf(await scrapeMetrics(metrics), 'content_outbox_backlog_events') === 0 ? true : undefined),
    20_000,
    'an empty backlog',
  );
});

it('with the relay off, every committed event waits in the backlog and none is counted as published', async () => {
  const { app, metrics } = await started({ OUTBOX_RELAY: 'false' });
  quiet = app;
  const user = await seedUser(app);
  for (const title of ['One', 'Two', 'Three']) {
    expect((await api(app, 'POST', '/api/v1/posts', { caller: user, body: { title, content: 'c' } })).status).toBe(201);
  }
  const samples = await scrapeMetrics(metrics);
  expect(sumOf(samples, 'content_outbox_backlog_events')).toBe(3);
  expect(sumOf(samples, 'content_outbox_published_total')).toBe(0);
});
