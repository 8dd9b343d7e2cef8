/**
 * `anthropic-messages` with extended thinking, against the shared fake provider: the probe
 * asks for thinking with `thinking_budget`, a thinking answer is ok, and the first token is
 * the first piece of the answer — never a `thinking_delta` or `signature_delta`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { API_KEY, configOf, rawTarget } from './helpers.ts';
import { probeOnce } from './probe-once.ts';

let fake: FakeProvider;
let seq = 0;
beforeAll(async () => {
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
});
afterAll(async () => {
  await fake.close();
});

const model = () => `claude-sonnet-4-5-${++seq}`;
const last = () => fake.attempts[fake.attempts.length - 1]!;
const key = (m: string) => ({ key: { provider: 'anthropic', endpoint: 'messages', model: m } });

describe('anthropic-messages with thinking', () => {
  it('times the first token at the first text_delta: thinking streamed for 400 ms before the answer is not a first token', async () => {
    const m = model();
    fake.script(m, { kind: 'ok', thinkingMs: 400 });
    const { event } = await probeOnce(fake.anthropicBaseUrl, 'anthropic-messages', m, { stream: true, thinking_budget: 1024 }, { over: key(m) });
    expect(event).toMatchObject({ outcome: 'ok', status: 200 });
    // The thinking block (thinking_delta…, signature_delta) arrived with the headers; the answer 400 ms later.
    expect(event.latency_ms.ttfb).toBeGreaterThanOrEqual(400);
    expect(last().tokensSent).toBeGreaterThan(0);
  });

  it('so a first-token timeout shorter than the thinking fires although thinking deltas were flowing', async () => {
    const m = model();
    fake.script(m, { kind: 'ok', thinkingMs: 1_500 });
    const { event } = await probeOnce(fake.anthropicBaseUrl, 'anthropic-messages', m, { stream: true, thinking_budget: 1024 }, {
      over: { ...key(m), timeouts: { connect_ms: 1_000, first_byte_ms: 300, total_ms: 4_000 } },
    });
    expect(event).toMatchObject({ outcome: 'error', error_class: 'timeout', status: 200 });
  });

  it('sends thinking enabled with the budget, and max_tokens room for the answer on top by default', async () => {
    const m = model();
    const { event } = await probeOnce(fake.anthropicBaseUrl, 'anthropic-messages', m, { thinking_budget: 2048 }, { over: key(m) });
    expect(event.outcome).toBe('ok');
    expect(last().body).toMatchObject({ model: m, max_tokens: 2048 + 64, thinking: { type: 'enabled', budget_tokens: 2048 } });
  });

  for (const stream of [false, true]) {
    it(`a redacted_thinking block before the answer (${stream ? 'streamed' : 'JSON'}) is ok`, async () => {
      const m = model();
      fake.script(m, { kind: 'ok', redactedThinking: true });
      const { event } = await probeOnce(fake.anthropicBaseUrl, 'anthropic-messages', m, { stream, thinking_budget: 1024 }, { over: key(m) });
      expect(event).toMatchObject({ outcome: 'ok', status: 200 });
    });
  }

  it('without thinking_budget no thinking is asked for', async () => {
    const m = model();
    await probeOnce(fake.anthropicBaseUrl, 'anthropic-messages', m, { stream: true }, { over: key(m) });
    expect(last().body).not.toHaveProperty('thinking');
  });

  it('refuses a budget the API would refuse, naming the field', () => {
    const problems = (request: Record<string, unknown>) => {
      try {
        configOf({ targets: [rawTarget(fake.anthropicBaseUrl, 'c', { kind: 'anthropic-messages', ...key('c'), request })] });
        return [];
      } catch (err) {
        return (err as Error).message.split('\n').slice(1);
      }
    };
    expect(problems({ thinking_budget: 1024, max_tokens: 1024 })).toEqual([
      'target "c" (targets[0]): request.thinking_budget: must be below max_tokens (1024), which counts the thinking too, or the API refuses the request',
    ]);
    expect(problems({ thinking_budget: 512 })).toEqual(['target "c" (targets[0]): request.thinking_budget: must be an integer between 1024 and 32000, got 512']);
  });
});
