/**
 * The SDK never hurts its host through its own surface: every option is checked at
 * construction (`BB_ERR_SDK_INVALID_OPTIONS` naming the field), and the SDK's refusals
 * reach the caller through the official clients as readable answers, not as a
 * network-looking `APIConnectionError`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { BreakerboxError, createBreakerbox, SDK_ERROR_CODES } from '../../sdk/index.ts';
import { ask, rig, type Rig } from './scenario-helpers.ts';

function invalidField(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(BreakerboxError);
    expect((e as BreakerboxError).code).toBe(SDK_ERROR_CODES.INVALID_OPTIONS);
    return (e as BreakerboxError).field;
  }
  return undefined;
}

describe('options are validated at construction', () => {
  it('names the field of a missing telemetry url instead of crashing on it', () => {
    expect(invalidField(() => createBreakerbox({ telemetry: { url: undefined as unknown as string, service: 's' } }))).toBe('telemetry.url');
    expect(invalidField(() => createBreakerbox({ telemetry: { url: 'ftp://x', service: 's' } }))).toBe('telemetry.url');
    expect(invalidField(() => createBreakerbox({ telemetry: { url: 'http://collector:8080' } as never }))).toBe('telemetry.service');
  });

  it('refuses bad numbers, unknown fields and wrong types, each by its path', () => {
    const cases: Array<[unknown, string]> = [
      [{ defaults: { breaker: { errorThreshold: 2 } } }, 'defaults.breaker.errorThreshold'],
      [{ defaults: { timeouts: { idleMs: -1 } } }, 'defaults.timeouts.idleMs'],
      [{ defaults: { timeout: { idleMs: 5 } } }, 'defaults.timeout'],
      [{ defaults: { bulkhead: { maxConcurrent: 0 } } }, 'defaults.bulkhead.maxConcurrent'],
      [{ budget: { hourlyUsd: 'ten' } }, 'budget.hourlyUsd'],
      [{ prices: { 'gpt-x': { inputPerMTok: 1 } } }, 'prices["gpt-x"].outputPerMTok'],
      [{ latencyBoundsMs: [10, 5] }, 'latencyBoundsMs[1]'],
      [{ telemetry: { url: 'http://c', service: 's', maxBatchEvents: 6_000 } }, 'telemetry.maxBatchEvents'],
      [{ clock: { now: () => 0 } }, 'clock.setTimeout'],
      [{ keySettings: 'no' }, 'keySettings'],
    ];
    for (const [options, field] of cases) expect(invalidField(() => createBreakerbox(options as never)), field).toBe(field);
  });

  it('checks fetch options and what keySettings returns', () => {
    const bb = createBreakerbox({ keySettings: () => ({ retry: { maxAttempts: 0 } }) });
    expect(invalidField(() => bb.fetch({ fallbacks: { 'gpt-4o': [{ baseURL: 'not a url' }] } }))).toBe('fallbacks["gpt-4o"][0].baseURL');
    expect(invalidField(() => bb.fetch({ fallbackOn: ['context_lenght' as never] }))).toBe('fallbackOn[0]');
    expect(invalidField(() => bb.fetch({ midStream: 'retry' as never }))).toBe('midStream');
    expect(invalidField(() => bb.fetch({ exerciseShare: 1.5 }))).toBe('exerciseShare');
    expect(invalidField(() => bb.policy({ provider: 'p', endpoint: 'chat', model: 'm' }))).toBe('keySettings().retry.maxAttempts');
  });

  it('checks operation specs', () => {
    const bb = createBreakerbox();
    expect(invalidField(() => bb.operation({ name: 'op', levels: [] }))).toBe('levels');
    expect(invalidField(() => bb.operation({ name: 'op', levels: [{ key: { provider: 'p', endpoint: 'chat' } as never, run: async () => 1 }] }))).toBe('levels[0].key.model');
    expect(invalidField(() => bb.operation({ name: 'op', exerciseShare: -1, levels: [{ run: async () => 1 }] }))).toBe('exerciseShare');
  });

  it('accepts the README example unchanged', () => {
    const bb = createBreakerbox({
      defaults: { breaker: { latencyCeilingMs: 20_000 }, timeouts: { firstTokenMs: 8_000, idleMs: 5_000, totalMs: 60_000 } },
      keySettings: (key) => (key.model === 'o3-mini' ? { breaker: { minCalls: 5 } } : undefined),
      budget: { perRequestUsd: 0.5, hourlyUsd: 20, dailyUsd: 200 },
      telemetry: { url: 'http://collector:8080', token: 't', service: 'ticket-drafts' },
    });
    bb.onWarning(() => undefined);
    expect(() =>
      bb.fetch({
        baseURL: 'https://api.openai.com/v1',
        timeouts: { connectMs: 3_000, firstByteMs: 10_000, firstTokenMs: 8_000, idleMs: 5_000 },
        fallbacks: { 'gpt-4o': [{ baseURL: 'https://my-azure.openai.azure.com/openai/v1', apiKey: 'k', region: 'eu' }, { model: 'gpt-4o-mini' }] },
        fallbackOn: ['context_length'],
      }),
    ).not.toThrow();
    return bb.close(10);
  });
});

describe('refusals read as refusals through the official clients', () => {
  let r: Rig;
  afterEach(async () => r?.close());
  const port = () => new URL(r.fake.url).port;

  it('openai: "503 breakerbox refused: breaker open for …" with the SDK code, not "Connection error."', async () => {
    r = await rig();
    r.bb.policy({ provider: `127.0.0.1:${port()}`, endpoint: 'chat', model: 'gpt-4o' }).breaker.forceOpen();
    const client = new OpenAI({ baseURL: r.fake.openaiBaseUrl, apiKey: r.fake.apiKey, fetch: r.bb.fetch() }); // default maxRetries
    const err = (await client.chat.completions.create(ask('gpt-4o')).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).not.toBeInstanceOf(OpenAI.APIConnectionError);
    expect(err.status).toBe(503);
    expect(err.message).toMatch(/^503 breakerbox refused: breaker open for 127\.0\.0\.1:\d+\/chat\/gpt-4o/);
    expect(err.code).toBe(SDK_ERROR_CODES.BREAKER_OPEN);
    expect(r.fake.attempts).toHaveLength(0); // refused without touching the network, and not retried by the client
  });

  it('anthropic: the same refusal text through @anthropic-ai/sdk', async () => {
    r = await rig();
    r.bb.policy({ provider: `127.0.0.1:${port()}`, endpoint: 'messages', model: 'claude-sonnet-4' }).breaker.forceOpen();
    const anthropic = new Anthropic({ baseURL: r.fake.anthropicBaseUrl, apiKey: r.fake.apiKey, fetch: r.bb.fetch() });
    const err = (await anthropic.messages.create({ model: 'claude-sonnet-4', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>;
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err).not.toBeInstanceOf(Anthropic.APIConnectionError);
    expect(err.message).toMatch(/^503 breakerbox refused: breaker open for /);
  });

  it('a timeout with no provider answer reads as a breakerbox timeout (first byte scaled to 200 ms)', async () => {
    r = await rig({ timeouts: { firstByteMs: 200 } });
    r.fake.script('gpt-4o', { kind: 'no_response' }, { persistent: true });
    const err = (await r.client.chat.completions.create(ask('gpt-4o')).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(err.status).toBe(504);
    expect(err.message).toMatch(/breakerbox: no response headers within 200 ms/);
    expect(err.code).toBe(SDK_ERROR_CODES.TIMEOUT);
  });
});
