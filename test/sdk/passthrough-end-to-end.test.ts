/**
 * Nothing passes silently, end to end: requests `bb.fetch` cannot protect, sent through the
 * official `openai` client to the fake provider, reach it unchanged and once; each host and
 * path family is announced once through `onWarning`; a real collector then shows their counts
 * on `GET /api/keys` (`passthrough`) and on `/metrics` (`breakerbox_passthrough_requests_total`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createBreakerbox } from '../../sdk/index.ts';
import type { KeysReply } from '../../server/schemas/keys.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startListeningCollector, type ListeningCollector } from '../support/listening-collector.ts';

let collector: ListeningCollector;
let fake: FakeProvider;

beforeAll(async () => {
  collector = await startListeningCollector('passthrough');
  fake = await startFakeProvider({ tokens: 4 });
});
afterAll(async () => {
  await fake?.close();
  await collector?.close();
});

describe('passthrough: openai client → bb.fetch → fake provider, counts → real collector', () => {
  it('forwards what it cannot protect unchanged, warns once per family, and the collector shows the counts', async () => {
    const bb = createBreakerbox({ telemetry: { url: collector.url, token: collector.token, service: 'batch-jobs', instance: 'pod-1', intervalMs: 60_000 } });
    const warnings: string[] = [];
    bb.onWarning((w) => warnings.push(w));
    const errors: unknown[] = [];
    bb.onTelemetryError((e) => errors.push(e));
    const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch({ provider: 'openai' }) });

    // A GET (listing models) and POSTs to a path no model API has, twice with other ids in the body.
    await expect(client.models.list()).rejects.toMatchObject({ status: 404 });
    for (const file of ['file-abc123', 'file-def456']) {
      await expect(client.post('/fine_tuning/jobs', { body: { model: 'gpt-4o-mini', training_file: file } })).rejects.toMatchObject({ status: 404 });
    }
    await expect(client.post('/fine_tuning/jobs/ftjob-9x8y7z6w5v/cancel', {})).rejects.toMatchObject({ status: 404 });

    // Each reached the provider once (no retry, no fallback), as the client sent it.
    expect(fake.attempts.map((a) => `${a.method} ${a.path}`)).toEqual([
      'GET /v1/models',
      'POST /v1/fine_tuning/jobs',
      'POST /v1/fine_tuning/jobs',
      'POST /v1/fine_tuning/jobs/ftjob-9x8y7z6w5v/cancel',
    ]);
    expect(fake.attempts.slice(1, 3).map((a) => a.body)).toEqual([
      { model: 'gpt-4o-mini', training_file: 'file-abc123' },
      { model: 'gpt-4o-mini', training_file: 'file-def456' },
    ]);

    // One warning per host and path family, naming method, host, family and how to protect it.
    const host = new URL(fake.openaiBaseUrl).host;
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain(`GET ${host}/v1/models was forwarded unprotected`);
    expect(warnings[1]).toContain(`POST ${host}/v1/fine_tuning/jobs was forwarded unprotected`);
    expect(warnings[2]).toContain(`POST ${host}/v1/fine_tuning/jobs/{id}/cancel was forwarded unprotected`);
    for (const w of warnings) expect(w).toContain('What bb.fetch protects');
    // Nothing of these requests became a breaker key or a call.
    expect(bb.keys()).toEqual([]);

    await bb.close(5_000);
    expect(errors).toEqual([]);
    expect(bb.telemetryStats()).toMatchObject({ refused: 0, dropped: 0 });

    const auth = { authorization: `Bearer ${collector.readToken}` };
    const keys = (await (await fetch(`${collector.url}/api/keys?window=1h`, { headers: auth })).json()) as KeysReply;
    expect(keys.keys).toEqual([]);
    expect(keys.passthrough.map(({ last_seen: _, why: __, ...p }) => p)).toEqual([
      { service: 'batch-jobs', host, path_family: '/v1/fine_tuning/jobs', method: 'POST', requests: 2 },
      { service: 'batch-jobs', host, path_family: '/v1/fine_tuning/jobs/{id}/cancel', method: 'POST', requests: 1 },
      { service: 'batch-jobs', host, path_family: '/v1/models', method: 'GET', requests: 1 },
    ]);
    for (const p of keys.passthrough) expect(p.why).toBeTruthy();

    const page = await (await fetch(`${collector.url}/metrics`, { headers: auth })).text();
    const series = page.split('\n').filter((l) => l.startsWith('breakerbox_passthrough_requests_total{'));
    expect(series.sort()).toEqual([
      `breakerbox_passthrough_requests_total{service="batch-jobs",host="${host}",path_family="/v1/fine_tuning/jobs"} 2`,
      `breakerbox_passthrough_requests_total{service="batch-jobs",host="${host}",path_family="/v1/fine_tuning/jobs/{id}/cancel"} 1`,
      `breakerbox_passthrough_requests_total{service="batch-jobs",host="${host}",path_family="/v1/models"} 1`,
    ]);
    expect(page).toContain('# TYPE breakerbox_passthrough_requests_total counter');
  });
});
