/**
 * Evidence samples end to end: failed calls through the official `openai` client (with the
 * SDK's fetch) against the fake provider reach a real collector in `window.samples`, and the
 * read API gives back their upstream request ids, statuses and redacted provider messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { createBreakerbox } from '../../sdk/index.ts';
import type { SamplesReply as SamplesReplyBody } from '../../server/schemas/samples.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startListeningCollector, type ListeningCollector } from '../support/listening-collector.ts';

let collector: ListeningCollector;
let url: string;
let token: string;
let readToken: string;
let fake: FakeProvider;

beforeAll(async () => {
  collector = await startListeningCollector('samples');
  ({ url, token, readToken } = collector);
  fake = await startFakeProvider({ tokens: 4 });
});
afterAll(async () => {
  await fake?.close();
  await collector?.close();
});

const SECRET_KEY = 'sk-proj-Zy8Xw7Vu6Ts5Rq4Po3Nm2Lk1Jj0Hh9Gg8Ff7';
const EMAIL = 'alice.smith@customer.example';
const PROMPT = 'Summarise the quarterly report for ACME-PROMPT-MARKER';

async function samplesOf(query: string): Promise<SamplesReplyBody> {
  const res = await fetch(`${url}/api/key/samples?${query}`, { headers: { authorization: `Bearer ${readToken}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as SamplesReplyBody;
}

describe('samples: openai client → SDK → real collector → read API', () => {
  it('stores each failed call with the provider\'s request id, status and error, and no secret or prompt text', async () => {
    const model = 'gpt-4o-mini';
    const bb = createBreakerbox({
      defaults: { retry: { maxAttempts: 1 }, breaker: { minCalls: 100 } },
      telemetry: { url, token, service: 'drafts', instance: 'pod-3', intervalMs: 60_000 },
    });
    const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch({ provider: 'openai' }) });
    fake.script(model, [
      { kind: 'status', status: 503 },
      { kind: 'rate_limit' },
      { kind: 'status', status: 400, message: `Invalid 'user': ${EMAIL} was rejected for key ${SECRET_KEY}` },
    ]);
    const failures: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      await client.chat.completions.create({ model, messages: [{ role: 'user', content: PROMPT }] }).catch((e: unknown) => failures.push(e));
    }
    await client.chat.completions.create({ model, messages: [{ role: 'user', content: PROMPT }] }); // healthy again: no sample
    expect(failures).toHaveLength(3);
    const ids = fake.attempts.filter((a) => a.model === model).map((a) => a.requestId);
    await bb.close(2_000);
    expect(bb.telemetryStats()).toMatchObject({ dropped: 0, buffered: 0 });

    const body = await samplesOf(`provider=openai&endpoint=chat&model=${encodeURIComponent(model)}&window=1h`);
    const rows = body.samples;
    expect(rows.map((r) => r.sample.upstream_request_id)).toEqual([ids[2], ids[1], ids[0]]); // newest first
    expect(rows.map((r) => r.sample.status)).toEqual([400, 429, 503]);
    expect(rows.map((r) => r.sample.error_class)).toEqual(['bad_request', 'rate_limit', 'server']);
    expect(rows[1]!.sample).toMatchObject({ error_type: 'requests', error_code: 'rate_limit_exceeded', attempt: 1, outcome: 'error' });
    expect(rows[2]!.sample.message).toBe('The engine is currently overloaded, please try again later.');
    expect(rows[0]!.sample.message).toBe(`Invalid 'user': [redacted] was rejected for key [redacted]`);
    expect(rows.every((r) => r.service === 'drafts' && r.instance === 'pod-3')).toBe(true);
    const all = JSON.stringify(body);
    expect(all).not.toContain(SECRET_KEY);
    expect(all).not.toContain(EMAIL);
    expect(all).not.toContain('ACME-PROMPT-MARKER');
    expect(all).not.toContain(fake.apiKey);

    const onlyServer = await samplesOf(`provider=openai&endpoint=chat&model=${encodeURIComponent(model)}&window=1h&error_class=server`);
    expect(onlyServer.samples.map((r) => r.sample.upstream_request_id)).toEqual([ids[0]]);
    const otherService = await samplesOf(`provider=openai&endpoint=chat&model=${encodeURIComponent(model)}&window=1h&service=billing`);
    expect(otherService.samples).toEqual([]);
  });

  it('keeps Anthropic\'s request-id, overloaded_error type and message through the official @anthropic-ai/sdk client', async () => {
    const model = 'claude-3-5-haiku-20241022';
    const bb = createBreakerbox({
      defaults: { retry: { maxAttempts: 1 }, breaker: { minCalls: 100 } },
      telemetry: { url, token, service: 'drafts', instance: 'pod-4', intervalMs: 60_000 },
    });
    const client = new Anthropic({ baseURL: fake.anthropicBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch({ provider: 'anthropic' }) });
    fake.script(model, [{ kind: 'status', status: 529 }]);
    await expect(client.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: PROMPT }] })).rejects.toThrow();
    const id = fake.attempts.filter((a) => a.model === model).at(-1)!.requestId;
    await bb.close(2_000);
    const body = await samplesOf(`provider=anthropic&endpoint=messages&model=${encodeURIComponent(model)}&window=1h`);
    expect(body.samples.map((r) => r.sample)).toEqual([expect.objectContaining({
      status: 529, error_class: 'server', error_type: 'overloaded_error', message: 'Overloaded', upstream_request_id: id, attempt: 1, outcome: 'error',
    })]);
    expect(JSON.stringify(body)).not.toContain('ACME-PROMPT-MARKER');
  });

  it('answers 404 for a key that never reported, and 400 for an unknown class filter', async () => {
    const h = { headers: { authorization: `Bearer ${readToken}` } };
    expect((await fetch(`${url}/api/key/samples?provider=openai&endpoint=chat&model=nope`, h)).status).toBe(404);
    expect((await fetch(`${url}/api/key/samples?provider=openai&endpoint=chat&model=gpt-4o-mini&error_class=overloaded`, h)).status).toBe(400);
  });
});
