/**
 * Reasoning models over `openai-chat` and `openai-responses`: the probe sends
 * `max_completion_tokens` / `max_output_tokens` with a low effort and a budget that lets
 * the model think and answer, so a healthy reasoning model reads ok; a budget too small
 * for its thinking reads truncated, never ok.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isReasoningModel } from '../../probe/adapters/reasoning.ts';
import { estimateInputTokens } from '../support/fake-provider-bodies.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { API_KEY, configOf, rawTarget } from './helpers.ts';
import { probeOnce } from './probe-once.ts';

let fake: FakeProvider;
let base: string;
beforeAll(async () => {
  // 192 hidden tokens at medium effort, so 96 at the probe's low effort: more than a small budget holds.
  fake = await startFakeProvider({ apiKeys: [API_KEY], reasoningTokens: 192 });
  base = fake.openaiBaseUrl;
});
afterAll(async () => {
  await fake.close();
});

const last = () => fake.attempts[fake.attempts.length - 1]!;

describe('reasoning models over openai-chat', () => {
  for (const model of ['gpt-5-mini', 'gpt-5.1', 'o3', 'o4-mini', 'o1']) {
    for (const stream of [false, true]) {
      it(`a healthy ${model} (${stream ? 'streamed' : 'JSON'}) reads ok, asked with max_completion_tokens and reasoning_effort low`, async () => {
        const { event } = await probeOnce(base, 'openai-chat', model, { stream });
        expect(event.error_class).toBeUndefined();
        expect(event.outcome).toBe('ok');
        expect(last().body).toMatchObject({ model, max_completion_tokens: 1024, reasoning_effort: 'low' });
        expect(last().body).not.toHaveProperty('max_tokens');
        // Billed for thinking plus answer: 96 + 8 output tokens at $10/Mtok, the fake's input estimate at $1.25.
        expect(event.cost_usd).toBeCloseTo((estimateInputTokens(last().body) * 1.25 + 104 * 10) / 1e6, 12);
      });
    }
  }

  it('a non-reasoning model keeps max_tokens and gets no reasoning_effort', async () => {
    const { event } = await probeOnce(base, 'openai-chat', 'gpt-4.1-mini');
    expect(event.outcome).toBe('ok');
    expect(last().body).toMatchObject({ max_tokens: 8 });
    expect(last().body).not.toHaveProperty('max_completion_tokens');
    expect(last().body).not.toHaveProperty('reasoning_effort');
  });

  it('a budget the thinking eats reads truncated (finish_reason length, no text), not ok', async () => {
    const { event } = await probeOnce(base, 'openai-chat', 'o4-mini', { max_tokens: 16 });
    expect(event).toMatchObject({ outcome: 'error', error_class: 'truncated', status: 200 });
    expect(last().body).toMatchObject({ max_completion_tokens: 16 });
  });

  it('reasoning: true sends the reasoning dialect to a deployment whose name says nothing', async () => {
    const plain = await probeOnce(base, 'openai-chat', 'o3', { model: 'o3', reasoning: false });
    // The provider refuses max_tokens for it: the probe is flagged misconfigured, as the real API would make it.
    expect(plain.event).toMatchObject({ outcome: 'error', error_class: 'bad_request', status: 400 });
    expect(plain.prober.stats.misconfigured).toBe(1);
    const forced = await probeOnce(base, 'openai-chat', 'o3', { reasoning: true, reasoning_effort: 'medium', max_tokens: 2000 });
    expect(forced.event.outcome).toBe('ok');
    expect(last().body).toMatchObject({ max_completion_tokens: 2000, reasoning_effort: 'medium' });
  });
});

describe('openai-chat answers', () => {
  for (const stream of [false, true]) {
    it(`a refusal instead of content (${stream ? 'streamed delta.refusal, finish stop' : 'JSON'}) reads policy, not ok or a malformed answer`, async () => {
      const model = `gpt-4.1-refuses-${stream}`;
      fake.script(model, { kind: 'ok', output: 'refusal' });
      const { event } = await probeOnce(base, 'openai-chat', model, { stream });
      expect(event).toMatchObject({ outcome: 'error', error_class: 'policy', status: 200 });
    });
  }
});

describe('reasoning models over openai-responses', () => {
  it('a healthy gpt-5 reads ok with reasoning.effort low and max_output_tokens 1024', async () => {
    const { event } = await probeOnce(base, 'openai-responses', 'gpt-5', { stream: true });
    expect(event.outcome).toBe('ok');
    expect(last().body).toMatchObject({ max_output_tokens: 1024, reasoning: { effort: 'low' }, stream: true });
  });

  it('a budget the thinking eats reads truncated (status incomplete, max_output_tokens)', async () => {
    for (const stream of [false, true]) {
      const { event } = await probeOnce(base, 'openai-responses', 'gpt-5', { stream, max_tokens: 32 });
      expect(event).toMatchObject({ outcome: 'error', error_class: 'truncated', status: 200 });
    }
  });
});

describe('the reasoning choice', () => {
  it('knows reasoning models by name, with or without a vendor prefix', () => {
    expect(['gpt-5', 'gpt-5-mini', 'gpt-5.1-codex', 'o1', 'o3-mini', 'o4-mini', 'openai/o3', 'o1-2024-12-17'].filter((m) => !isReasoningModel(m))).toEqual([]);
    expect(['gpt-4o', 'gpt-4.1-mini', 'omni-moderation-latest', 'o', 'gpt-50x', 'llama-3.3-70b'].filter(isReasoningModel)).toEqual([]);
  });

  it('names the field of a wrong effort, and refuses an effort for a model that does not reason', () => {
    const bad = (request: Record<string, unknown>, model = 'o3') => {
      try {
        configOf({ targets: [rawTarget('http://127.0.0.1:9/v1', model, { request })] });
        return [];
      } catch (err) {
        return (err as Error).message.split('\n').slice(1);
      }
    };
    expect(bad({ reasoning_effort: 'extreme' })).toEqual(['target "o3" (targets[0]): request.reasoning_effort: must be one of none, minimal, low, medium, high, xhigh, got "extreme"']);
    expect(bad({ reasoning_effort: 'low' }, 'gpt-4o')).toEqual([
      'target "gpt-4o" (targets[0]): request.reasoning_effort: is only sent to a reasoning model; "gpt-4o" is not one by its name: add reasoning: true if it is',
    ]);
    expect(bad({ reasoning: false, reasoning_effort: 'low' })).toEqual(['target "o3" (targets[0]): request.reasoning_effort: is only sent to a reasoning model, and reasoning is false']);
    expect(bad({ reasoning: 'yes' })).toEqual(['target "o3" (targets[0]): request.reasoning: must be true or false, got "yes"']);
  });
});
