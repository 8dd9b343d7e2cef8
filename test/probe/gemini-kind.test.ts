/**
 * The `gemini` kind against the fake provider's Google routes: the Gemini API with the key
 * in `x-goog-api-key`, Vertex AI with a bearer token and the location in the path, JSON
 * and `alt=sse` streams, thinking models sent a `thinkingConfig` that leaves room for the
 * answer, `MAX_TOKENS` read as truncated and `SAFETY` / a blocked prompt as policy, Google
 * error statuses classified, and config mistakes refused naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { API_KEY, configOf, rawTarget } from './helpers.ts';
import { probeOnce } from './probe-once.ts';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ apiKeys: [API_KEY], reasoningTokens: 100 });
});
afterAll(async () => {
  await fake.close();
});

const last = () => fake.attempts[fake.attempts.length - 1]!;
const googleKey = (m: string) => ({ key: { provider: 'google', endpoint: 'generate', model: m } });
const probe = (m: string, request: Record<string, unknown> = {}, over: Record<string, unknown> = {}) =>
  probeOnce(fake.geminiBaseUrl, 'gemini', m, request, { over: { ...googleKey(m), ...over } });

describe('the gemini kind', () => {
  for (const stream of [false, true]) {
    it(`probes the Gemini API (${stream ? 'alt=sse stream' : 'JSON'}) with the key in x-goog-api-key, never the query`, async () => {
      const { event, lines } = await probe('gemini-2.0-flash', { stream });
      expect(event).toMatchObject({ outcome: 'ok', status: 200 });
      expect(last().path).toBe(`/v1beta/models/gemini-2.0-flash:${stream ? 'streamGenerateContent' : 'generateContent'}`);
      expect(last().query).toBe(stream ? 'alt=sse' : '');
      expect(last().headers['x-goog-api-key']).toBe('[redacted]');
      expect(last().body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: expect.any(String) }] }], generationConfig: { maxOutputTokens: 8 } });
      expect(last().body).not.toHaveProperty('generationConfig.thinkingConfig');
      expect(event.cost_usd).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain(API_KEY);
    });
  }

  it('probes Vertex AI with a bearer token, the project and location in the path', async () => {
    const { event } = await probe('gemini-2.0-flash', { project: 'acme-prod', location: 'europe-west4', stream: true }, { key: { provider: 'vertex-ai', endpoint: 'generate', model: 'gemini-2.0-flash', region: 'europe-west4' } });
    expect(event).toMatchObject({ outcome: 'ok', status: 200 });
    expect(last().path).toBe('/v1/projects/acme-prod/locations/europe-west4/publishers/google/models/gemini-2.0-flash:streamGenerateContent');
    expect(last().headers.authorization).toBe('[redacted]');
    expect(last().headers['x-goog-api-key']).toBeUndefined();
  });

  it('turns thinking off for 2.5 Flash, and gives 2.5 Pro its minimum budget with room for the answer', async () => {
    const flash = await probe('gemini-2.5-flash');
    expect(flash.event.outcome).toBe('ok');
    expect(last().body).toMatchObject({ generationConfig: { maxOutputTokens: 8, thinkingConfig: { thinkingBudget: 0 } } });
    const pro = await probe('gemini-2.5-pro', { stream: true });
    expect(pro.event).toMatchObject({ outcome: 'ok' });
    expect(last().body).toMatchObject({ generationConfig: { maxOutputTokens: 128 + 64, thinkingConfig: { thinkingBudget: 128 } } });
    const three = await probe('gemini-3-pro-preview');
    expect(three.event.outcome).toBe('ok');
    expect(last().body).toMatchObject({ generationConfig: { maxOutputTokens: 1024, thinkingConfig: { thinkingLevel: 'low' } } });
  });

  it('reads a budget the thinking eats as truncated (MAX_TOKENS), not ok', async () => {
    const { event } = await probe('gemini-2.5-pro', { max_tokens: 64, thinking_budget: 60 });
    expect(event).toMatchObject({ outcome: 'error', error_class: 'truncated', status: 200 });
  });

  for (const stream of [false, true]) {
    it(`reads SAFETY and a blocked prompt as policy (${stream ? 'stream' : 'JSON'})`, async () => {
      const m = `gemini-2.0-flash-safety-${stream}`;
      fake.script(m, [{ kind: 'content_filter' }, { kind: 'content_filter', as: 'error' }]);
      expect((await probe(m, { stream })).event).toMatchObject({ outcome: 'error', error_class: 'policy' });
      expect((await probe(m, { stream })).event).toMatchObject({ outcome: 'error', error_class: 'policy' });
    });
  }

  it('classifies Google error statuses: 503 UNAVAILABLE server, 429 per-day quota, a cut stream broken', async () => {
    const m = 'gemini-2.0-flash-errors';
    fake.script(m, [{ kind: 'status', status: 503 }, { kind: 'quota' }, { kind: 'cut_stream', afterTokens: 2, how: 'end' }]);
    expect((await probe(m)).event).toMatchObject({ outcome: 'error', error_class: 'server', status: 503 });
    expect((await probe(m)).event).toMatchObject({ outcome: 'error', error_class: 'quota', status: 429 });
    expect((await probe(m, { stream: true })).event).toMatchObject({ outcome: 'error', error_class: 'stream_broken' });
  });

  it('refuses a versioned base_url, half a Vertex location and a budget over max_tokens, naming the field', () => {
    const problems = (request: Record<string, unknown>, base = fake.geminiBaseUrl) => {
      try {
        configOf({ targets: [rawTarget(base, 'g', { kind: 'gemini', ...googleKey('gemini-2.5-pro'), request })] });
        return [];
      } catch (err) {
        return (err as Error).message.split('\n').slice(1);
      }
    };
    expect(problems({}, `${fake.geminiBaseUrl}/v1beta`)[0]).toMatch(/base_url: must be the host/);
    expect(problems({ project: 'acme-prod' })).toEqual(['target "g" (targets[0]): request.location: Vertex AI needs both project and location']);
    expect(problems({ thinking_budget: 512, max_tokens: 256 })).toEqual(['target "g" (targets[0]): request.thinking_budget: must be below max_tokens (256): Gemini counts the thinking in maxOutputTokens']);
  });
});
