/**
 * Scenarios of the SDK issue over real HTTP, through the official `openai` client with the
 * SDK's fetch (`maxRetries: 0`). Durations are scaled down; each test says how.
 */
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ask, rig, type Rig } from './scenario-helpers.ts';

const PRIMARY = 'gpt-4o';
const FALLBACK = 'gpt-4o-mini';
let r: Rig;
afterEach(async () => r?.close());

describe('scenario: rate limits', () => {
  it('honours Retry-After on a 429 instead of retrying in a tight loop (Retry-After 2 s scaled to 0.2 s)', async () => {
    r = await rig();
    r.fake.script(PRIMARY, [{ kind: 'rate_limit', retryAfter: '0.2' }]);
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.choices[0]!.finish_reason).toBe('stop');
    const [a, b] = r.fake.attemptsFor(PRIMARY);
    expect(r.fake.attemptsFor(PRIMARY)).toHaveLength(2);
    expect(b!.ts - a!.ts).toBeGreaterThanOrEqual(190);
    expect(r.calls[0]).toMatchObject({ ok: true, attempts: 2, level: 0, model: PRIMARY });
  });

  it('bounds retries of a persistent 429 without Retry-After, jitters them, then fails over', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, { kind: 'rate_limit' }, { persistent: true });
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.model).toBe(FALLBACK);
    expect(r.fake.attemptsFor(PRIMARY)).toHaveLength(3);
    expect(r.calls[0]).toMatchObject({ ok: true, attempts: 4, level: 2, model: FALLBACK });
  });
});

describe('scenario: server errors', () => {
  it('retries a single 500 on the same model', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, [{ kind: 'status', status: 500 }]);
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.model).toBe(PRIMARY);
    expect(r.fake.attemptsFor(PRIMARY).map((a) => a.status)).toEqual([500, 200]);
    expect(r.fake.attemptsFor(FALLBACK)).toHaveLength(0);
  });

  it('fails over on a persistent 503 within the retry budget', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, { kind: 'status', status: 503 }, { persistent: true });
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.model).toBe(FALLBACK);
    expect(r.fake.attemptsFor(PRIMARY).length).toBeLessThanOrEqual(3);
  });

  it('treats an Anthropic 529 overloaded as a server error: retried, then served (through the official anthropic client)', async () => {
    r = await rig();
    const anthropic = new Anthropic({ baseURL: r.fake.anthropicBaseUrl, apiKey: r.fake.apiKey, maxRetries: 0, fetch: r.bb.fetch() });
    r.fake.script('claude-sonnet-4', [{ kind: 'status', status: 529 }]);
    const msg = await anthropic.messages.create({ model: 'claude-sonnet-4', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(msg.stop_reason).toBe('end_turn');
    expect(r.fake.attemptsFor('claude-sonnet-4').map((a) => a.status)).toEqual([529, 200]);
    const w = r.bb.collect().find((e) => e.type === 'window');
    expect(w).toMatchObject({ calls: 2, ok: 1, errors: { server: 1 }, retries: 1 });
  });

  it('hands the provider answer back when every attempt fails, so the official client raises its typed error', async () => {
    r = await rig();
    r.fake.script(PRIMARY, { kind: 'status', status: 529 }, { persistent: true });
    const err = await r.client.chat.completions.create(ask(PRIMARY)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(529);
    expect(r.fake.attemptsFor(PRIMARY)).toHaveLength(3);
  });
});

describe('scenario: connection faults', () => {
  it('retries a TCP reset before headers', async () => {
    r = await rig();
    r.fake.script(PRIMARY, [{ kind: 'reset' }]);
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.choices[0]!.message.content).toBeTruthy();
    expect(r.fake.attemptsFor(PRIMARY)).toHaveLength(2);
    expect(r.bb.collect()[0]).toMatchObject({ type: 'window', errors: { network: 1 }, ok: 1 });
  });

  it('bounds a silent route by the first-byte timeout, does not retry it, and fails over (timeout scaled to 300 ms)', async () => {
    r = await rig({ timeouts: { firstByteMs: 300 }, fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, { kind: 'no_response' }, { persistent: true });
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.model).toBe(FALLBACK);
    expect(r.fake.attemptsFor(PRIMARY)).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ ok: true, level: 2, attempts: 2 });
  });
});

describe('scenario: client-fault answers', () => {
  it('moves a context-length error on to the next route by default, without retrying it on the same model', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: 'gpt-4.1' }] } });
    r.fake.script(PRIMARY, { kind: 'context_length' }, { persistent: true });
    const res = await r.client.chat.completions.create(ask(PRIMARY));
    expect(res.model).toBe('gpt-4.1');
    expect(r.fake.attemptsFor(PRIMARY)).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ ok: true, level: 2, attempts: 2 });
  });

  it('surfaces a context-length error unchanged with fallbackOn: [] and does not retry it', async () => {
    r = await rig({ fallbackOn: [], fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, { kind: 'context_length' }, { persistent: true });
    const err = await r.client.chat.completions.create(ask(PRIMARY)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    expect(r.fake.attempts).toHaveLength(1);
    expect(r.calls[0]).toMatchObject({ ok: false, errorClass: 'context_length', attempts: 1 });
  });

  it('does not retry a content-filter refusal and propagates the provider reason', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } });
    r.fake.script(PRIMARY, [{ kind: 'content_filter', as: 'error' }, { kind: 'content_filter' }]);
    const err = await r.client.chat.completions.create(ask(PRIMARY)).catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('content_filter');
    const filtered = await r.client.chat.completions.create(ask(PRIMARY));
    expect(filtered.choices[0]!.finish_reason).toBe('content_filter');
    expect(r.fake.attempts).toHaveLength(2);
    expect(r.calls.map((c) => [c.ok, c.errorClass])).toEqual([
      [false, 'policy'],
      [false, 'policy'],
    ]);
  });
});
