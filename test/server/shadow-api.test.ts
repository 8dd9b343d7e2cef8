/**
 * `GET /api/shadow` end to end: the SDK mirrors real requests (official `openai` client,
 * fake provider) to a successor the fake was set to make slower, longer, pricier and
 * truncated 1 in 4; its reporter sends the `shadow` windows to a real collector; the
 * comparison reads back what the fake was set to do, with the bill projected at the
 * primary's volume and a statement of what is not yet significant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createBreakerbox, PriceTable } from '../../sdk/index.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { SUCCESSOR, scriptSuccessor } from '../support/fake-provider-successor.ts';
import { startListeningCollector, type ListeningCollector } from '../support/listening-collector.ts';
import type { ShadowView } from '../../server/schemas/shadow.ts';

let collector: ListeningCollector;
let url: string;
let token: string;
let readToken: string;
let fake: FakeProvider;

beforeAll(async () => {
  collector = await startListeningCollector('shadow');
  ({ url, token, readToken } = collector);
  fake = await startFakeProvider({ tokens: 8 });
});
afterAll(async () => {
  await fake?.close();
  await collector?.close();
});

async function shadowView(query: string): Promise<ShadowView> {
  const res = await fetch(`${url}/api/shadow?${query}`, { headers: { authorization: `Bearer ${readToken}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as ShadowView;
}

describe('GET /api/shadow', () => {
  it('compares the successor with the primary as the fake was set, and projects the bill', async () => {
    const N = 40;
    const prices = { [SUCCESSOR.model]: SUCCESSOR.price };
    const bb = createBreakerbox({ prices, shadowLimits: { maxConcurrent: 64 }, telemetry: { url, token, service: 'drafts', intervalMs: 60_000 } });
    const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch({ shadow: { 'gpt-4o': { model: SUCCESSOR.model, share: 1 } } }) });
    scriptSuccessor(fake);
    for (let i = 0; i < N; i++) await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] });
    // Every mirror answered (the fake holds each 120 ms): poll, then send.
    for (let i = 0; i < 500 && fake.attemptsFor(SUCCESSOR.model).filter((a) => a.status !== undefined).length < N; i++) await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < 500 && bb.shadows.active > 0; i++) await new Promise((r) => setTimeout(r, 10));
    await bb.close(2_000);

    const view = await shadowView('window=1h');
    expect(view.method).toMatch(/two-proportion z-test/);
    expect(view.pairs).toHaveLength(1);
    const p = view.pairs[0]!;
    expect(p).toMatchObject({ key: { endpoint: 'chat', model: 'gpt-4o' }, candidate: { model: SUCCESSOR.model }, services: ['drafts'], pairs: N, dropped: 0 });
    expect(p.primary.truncation_share!.value).toBe(0);
    expect(p.shadow.truncation_share).toMatchObject({ value: 0.25, n: N });
    expect(p.shadow.error_share!.value).toBe(0);
    expect(p.shadow.output_tokens_per_call).toBe(SUCCESSOR.tokens);
    expect(p.primary.output_tokens_per_call).toBe(8);
    // Cost per call from the prices and the tokens the fake answered.
    const table = new PriceTable(prices);
    const inputTokens = 11; // the fake's prompt_tokens for this one message (usage of every answer)
    expect(p.primary.cost_per_call_usd).toBeCloseTo(table.cost('gpt-4o', inputTokens, 8), 9);
    expect(p.shadow.cost_per_call_usd).toBeCloseTo(table.cost(SUCCESSOR.model, inputTokens, SUCCESSOR.tokens), 9);
    // p50 from merged histograms: the successor's answers all took at least its 120 ms.
    expect(p.shadow.latency_p50_ms).toBeGreaterThanOrEqual(100);
    expect(p.primary.latency_p95_ms).toBeNull(); // 40 answers: below the 100 a p95 needs
    const truncation = p.differences.find((d) => d.metric === 'truncation_share')!;
    expect(truncation.significant).toBe(true); // 0/40 vs 10/40: |z| ≈ 3.4
    expect(p.not_significant.some((s) => s.startsWith('latency: 40 mirrored requests, p95 needs 100'))).toBe(true);
    // The bill at the primary's volume (its 40 calls in the hour), times the paired cost ratio.
    const ratio = p.shadow.cost_per_call_usd! / p.primary.cost_per_call_usd!;
    expect(p.bill!.ratio).toBeCloseTo(ratio, 2);
    expect(p.bill!.primary_calls_per_month).toBe(N * 24 * 30);
    expect(p.bill!.projected_usd_per_month).toBeCloseTo(p.bill!.primary_usd_per_month * ratio, 0);
    expect(p.bill_statement).toMatch(new RegExp(`^switching raises the bill by ×${ratio.toFixed(1).replace('.', '\\.')}, \\+\\$[0-9,]+ / month$`));

    // One primary key's pairs (the key page), and a key that never reported.
    const own = await shadowView(`window=1h&provider=${encodeURIComponent(p.key.provider)}&endpoint=chat&model=gpt-4o`);
    expect(own.pairs.map((x) => x.candidate.model)).toEqual([SUCCESSOR.model]);
    expect((await shadowView('window=1h&provider=x&endpoint=chat&model=none')).pairs).toEqual([]);
    const bad = await fetch(`${url}/api/shadow?window=1h&model=gpt-4o`, { headers: { authorization: `Bearer ${readToken}` } });
    expect(bad.status).toBe(400);
  });

  it("shows a lower validation pass share for a candidate whose answers fail the operation's schema", async () => {
    const N = 28; // 21 validated candidate answers: a share difference is tested from 20 per side
    const PRIMARY = 'gpt-4o-mini';
    // The fake's tool call answers `{ query, limit }` with `limit` = its tokens: 8 here, the successor's 24 break the schema's maximum.
    const schema = { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', maximum: 10 } }, required: ['query', 'limit'] };
    const tool = { type: 'function' as const, function: { name: 'search_docs', parameters: schema } };
    const bb = createBreakerbox({ shadowLimits: { maxConcurrent: 64 }, telemetry: { url, token, service: 'extract', intervalMs: 60_000 } });
    const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch({ validate: 'request', shadow: { [PRIMARY]: { model: SUCCESSOR.model, share: 1 } } }) });
    scriptSuccessor(fake);
    for (let i = 0; i < N; i++) await client.chat.completions.create({ model: PRIMARY, messages: [{ role: 'user', content: 'find it' }], tools: [tool], tool_choice: 'required' });
    for (let i = 0; i < 500 && bb.shadows.active > 0; i++) await new Promise((r) => setTimeout(r, 10));
    await bb.close(2_000);

    const [p] = (await shadowView(`window=1h&provider=${encodeURIComponent(bb.keys()[0]!.provider)}&endpoint=chat&model=${PRIMARY}`)).pairs;
    expect(p).toMatchObject({ services: ['extract'], pairs: N });
    // Every primary answer passed; of the successor's, the truncated quarter was never validated and the rest failed.
    expect(p!.primary.validation_pass_share).toMatchObject({ value: 1, n: N });
    expect(p!.shadow.validation_pass_share).toMatchObject({ value: 0, n: N * 0.75 });
    expect(p!.shadow.errors).toEqual({ truncated: N / 4, invalid_output: N * 0.75 });
    expect(p!.differences.find((d) => d.metric === 'validation_pass_share')).toMatchObject({ significant: true });
  });

  it('refuses a shadow window whose figures cannot all be true, naming the field', async () => {
    const side = { ok: 3, errors: { server: 1 }, refusals: 0, latency_ms: { bounds: [100], counts: [3, 0] }, output_tokens: 0, cost_usd: 0 };
    const now = Date.now();
    const res = await collector.app.inject({
      method: 'POST', url: '/v1/telemetry', headers: { authorization: `Bearer ${token}` },
      payload: {
        batch_id: 'shadow-bad', source: { service: 'drafts', instance: 'pod-1' },
        events: [{ type: 'shadow', start: now - 10_000, end: now, key: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' },
          candidate: { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1' }, pairs: 3, dropped: 0, primary: { ...side, errors: {} }, shadow: side }],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'BB_ERR_INGEST_INVALID', path: '/events/0/shadow/ok' } });
  });
});
