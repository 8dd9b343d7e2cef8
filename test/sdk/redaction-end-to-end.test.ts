/**
 * No secret and no request text survives from a provider's error message to the collector:
 * the official `openai` client (with the SDK's fetch) calls the fake provider, which answers
 * 400 with a message carrying one row of the secret table (test/support/secret-values.ts)
 * per model, or quoting the request's prompt back as vLLM / pydantic servers do. Searched:
 * `/api/key/samples`, the `call_samples` table and every byte of the SQLite files (database,
 * WAL, shared memory) while the collector runs and after it stopped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createBreakerbox } from '../../sdk/index.ts';
import type { SamplesReply } from '../../server/schemas/samples.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { SECRET_ROWS } from '../support/secret-values.ts';
import { startCollector } from '../probe/collector.ts';

let collector: Awaited<ReturnType<typeof startCollector>>;
let readToken: string;
let fake: FakeProvider;

beforeAll(async () => {
  collector = await startCollector();
  readToken = (await collector.app.storage.tokens.create('reader', ['read'])).secret;
  fake = await startFakeProvider({ tokens: 4 });
});
afterAll(async () => {
  await fake?.close();
  await collector?.close();
});

async function samplesOf(model: string): Promise<SamplesReply['samples']> {
  const res = await fetch(`${collector.url}/api/key/samples?provider=openai&endpoint=chat&model=${encodeURIComponent(model)}&window=1h`, {
    headers: { authorization: `Bearer ${readToken}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as SamplesReply).samples;
}

/** One failed call per model, each answered 400 with its own message; returns after the SDK flushed. */
async function failEach(calls: { model: string; message: string; content: string; code?: string }[]): Promise<void> {
  const bb = createBreakerbox({
    defaults: { retry: { maxAttempts: 1 }, breaker: { minCalls: 1000 } },
    telemetry: { url: collector.url, token: collector.ingestToken, service: 'drafts', instance: 'pod-1', intervalMs: 60_000 },
  });
  const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch({ provider: 'openai' }) });
  for (const c of calls) {
    fake.script(c.model, [{ kind: 'status', status: 400, errorType: 'invalid_request_error', code: c.code ?? 'invalid_value', message: c.message }]);
    await expect(client.chat.completions.create({ model: c.model, messages: [{ role: 'user', content: c.content }] })).rejects.toThrow();
  }
  await bb.close(5_000);
  expect(bb.telemetryStats()).toMatchObject({ dropped: 0, buffered: 0 });
}

describe('secrets in a provider error message never reach the collector', () => {
  it('stores a sample for every row of the secret table with none of its secrets, in the API, the table or the database files', async () => {
    await failEach(SECRET_ROWS.map((r, i) => ({ model: `redact-${i}`, message: `Request rejected: ${r.text}`, content: 'Say hello.' })));
    const secrets = SECRET_ROWS.flatMap((r) => r.secrets);
    const found = (text: string) => secrets.filter((s) => text.includes(s));
    for (let i = 0; i < SECRET_ROWS.length; i++) {
      const rows = await samplesOf(`redact-${i}`);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.sample).toMatchObject({ status: 400, error_type: 'invalid_request_error', error_code: 'invalid_value' });
      expect(rows[0]!.sample.message).toMatch(/^Request rejected: /);
      expect(found(JSON.stringify(rows))).toEqual([]);
    }
    const table = collector.rows<{ sample: string }>('SELECT * FROM call_samples');
    expect(table.length).toBeGreaterThanOrEqual(SECRET_ROWS.length);
    expect(found(JSON.stringify(table))).toEqual([]);
    expect(collector.diskText()).toContain('Request rejected: ');
    expect(found(collector.diskText())).toEqual([]);
  });
});

describe('samples never carry request content', () => {
  const PROMPT = 'Summarise the quarterly report for ACME-PROMPT-MARKER and list the three biggest risks';

  it('stores a 400 quoting the prompt back (pydantic / vLLM `input`, a long quote, an unquoted echo) without the prompt', async () => {
    await failEach([
      { model: 'echo-vllm', content: PROMPT, code: 'string_too_long', message: `[{'type': 'string_too_long', 'loc': ('body','messages',0,'content'), 'msg': 'String should have at most 10 characters', 'input': '${PROMPT}', 'ctx': {'max_length': 10}}]` },
      { model: 'echo-pydantic', content: PROMPT, message: `1 validation error for ChatRequest\nmessages.0.content\n  String should have at most 10 characters [type=string_too_long, input_value='${PROMPT}', input_type=str]` },
      { model: 'echo-quote', content: PROMPT, message: `Your message "${PROMPT.slice(0, 60)}" was flagged by moderation` },
      { model: 'echo-bare', content: PROMPT, message: `Content policy violation in: ${PROMPT} (category: other)` },
    ]);
    const vllm = (await samplesOf('echo-vllm'))[0]!.sample;
    expect(vllm).toMatchObject({ status: 400, error_type: 'invalid_request_error', error_code: 'string_too_long' });
    expect(vllm.message).toContain("'type': 'string_too_long'");
    expect(vllm.message).toContain("'input': '[redacted]'");
    expect((await samplesOf('echo-pydantic'))[0]!.sample.message).toContain("input_value='[redacted]', input_type=str");
    expect((await samplesOf('echo-quote'))[0]!.sample.message).toBe('Your message "[redacted]" was flagged by moderation');
    expect((await samplesOf('echo-bare'))[0]!.sample.message).toBe('Content policy violation in: [redacted] (category: other)');
    for (const model of ['echo-vllm', 'echo-pydantic', 'echo-quote', 'echo-bare']) expect(JSON.stringify(await samplesOf(model))).not.toContain('ACME-PROMPT-MARKER');
    expect(collector.diskText()).not.toContain('ACME-PROMPT-MARKER');
    expect(collector.diskText()).not.toContain('quarterly report');
  });

  it('keeps only the error type and code when the provider cut its message inside the quoted prompt', async () => {
    await failEach([{ model: 'echo-cut', content: PROMPT, code: 'string_too_long', message: `[{'type': 'string_too_long', 'input': '${PROMPT.slice(0, 40)}` }]);
    const [row] = await samplesOf('echo-cut');
    expect(row!.sample).toMatchObject({ status: 400, error_type: 'invalid_request_error', error_code: 'string_too_long' });
    expect(row!.sample.message).toBeUndefined();
    expect(collector.diskText()).not.toContain('quarterly report');
  });
});
