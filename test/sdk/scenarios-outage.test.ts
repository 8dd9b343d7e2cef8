/**
 * Longer scenarios: a primary outage with steady traffic, fail-over accounting, and a
 * collector that is down for the whole test. Real HTTP, official `openai` client, SDK fetch.
 *
 * Scaling (1/20): "down 60 s, one request every 4 s" → down 3 s, one request every 200 ms;
 * the rolling window 60 s → 3 s; cooldown 10 s (capped at 15 s) → 500 ms (capped at 750 ms).
 * No timing is asserted (the machine is shared): the failover bench measures how soon
 * traffic is back, at the real defaults and in real time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { ask, FAST_RETRY, rig, type Rig } from './scenario-helpers.ts';
import { createBreakerbox, type TasksEvent } from '../../sdk/index.ts';
import { startFakeProvider } from '../support/fake-provider.ts';

const PRIMARY = 'gpt-4o';
const FALLBACK = 'gpt-4o-mini';
let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

describe('scenario: primary down, then healthy', () => {
  it('opens the breaker, serves every request from the fallback, probes sparingly, and returns to the primary after recovery', async () => {
    r = await rig(
      { fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } },
      { defaults: { breaker: { minCalls: 5, windowMs: 3_000, cooldownMs: 500, maxCooldownMs: 750, halfOpenSuccesses: 2 } } },
    );
    const transitions: string[] = [];
    r.bb.onStateChange((t) => transitions.push(`${t.key.model}:${t.to}`));
    r.fake.script(PRIMARY, { kind: 'status', status: 503 }, { persistent: true });
    const served: Array<{ at: number; model: string }> = [];
    const t0 = Date.now();
    let recoveredAt = 0;
    for (let i = 0; i < 30; i++) {
      if (!recoveredAt && Date.now() - t0 >= 3_000) {
        r.fake.clear(PRIMARY);
        recoveredAt = Date.now();
      }
      const res = await r.client.chat.completions.create(ask(PRIMARY));
      served.push({ at: Date.now(), model: res.model });
      await sleep(200);
    }
    expect(served.every((s) => s.model === PRIMARY || s.model === FALLBACK)).toBe(true); // every request answered
    expect(transitions).toContain(`${PRIMARY}:open`);
    const duringOutage = r.fake.attempts.filter((a) => a.model === PRIMARY && a.ts < recoveredAt);
    const requestsDuringOutage = served.filter((s) => s.at < recoveredAt).length;
    // Without a breaker: up to 3 attempts per request. With it: the first trips, then probes only.
    expect(duringOutage.length).toBeLessThan(requestsDuringOutage);
    // How soon is a figure of the failover bench (real time, unscaled); here: it does come back.
    const backOnPrimary = served.find((s) => s.at > recoveredAt && s.model === PRIMARY);
    expect(backOnPrimary).toBeDefined();
    expect(served.at(-1)!.model).toBe(PRIMARY);
    expect(r.bb.policy({ provider: '127.0.0.1:' + new URL(r.fake.url).port, endpoint: 'chat', model: PRIMARY }).breaker.state.name).toBe('closed');
  });
});

describe('scenario: fail-over accounting', () => {
  it('names the fallback model in the answer and counts every failed attempt in attempts and cost', async () => {
    r = await rig({ fallbacks: { [PRIMARY]: [{ model: FALLBACK }] } }, { prices: { [FALLBACK]: { inputPerMTok: 1_000, outputPerMTok: 1_000 } } });
    r.fake.script(PRIMARY, { kind: 'status', status: 503 }, { persistent: true });
    const { data, response } = await r.client.chat.completions.create(ask(PRIMARY)).withResponse();
    expect(data.model).toBe(FALLBACK);
    expect(response.headers.get('x-breakerbox-model')).toBe(FALLBACK);
    expect(response.headers.get('x-breakerbox-level')).toBe('2');
    expect(response.headers.get('x-breakerbox-attempts')).toBe('4');
    const call = r.calls[0]!;
    expect(call).toMatchObject({ ok: true, level: 2, attempts: 4, model: FALLBACK, outputTokens: 8 });
    expect(call.costUsd).toBeCloseTo(((data.usage!.prompt_tokens + 8) * 1_000) / 1e6, 6);
    const tasks = r.bb.collect().find((e): e is TasksEvent => e.type === 'tasks')!;
    expect(tasks).toMatchObject({ operation: `chat:${PRIMARY}`, completed: 1, attempts: 4, levels: { '2': 1 }, fallback: { invoked: 1, failed: 0 } });
    expect(tasks.cost_usd).toBeCloseTo(call.costUsd, 6);
  });

  it('lists failed attempts with their class and cost in an operation result', async () => {
    r = await rig();
    const fake = r.fake;
    const client = r.client;
    const bb = r.bb;
    fake.script(PRIMARY, [{ kind: 'finish_length' }]);
    const op = bb.operation<string, OpenAI.Chat.ChatCompletion>({
      name: 'summarise',
      fallbackOn: ['truncated'],
      levels: [PRIMARY, FALLBACK].map((model) => ({
        key: { provider: 'fake', endpoint: 'chat', model },
        run: async (text: string) => {
          const res = await client.chat.completions.create(ask(model, { messages: [{ role: 'user', content: text }] }));
          if (res.choices[0]!.finish_reason === 'length') throw Object.assign(new Error('truncated'), { errorClass: 'truncated' as const });
          return res;
        },
        facts: (res: OpenAI.Chat.ChatCompletion) => ({ inputTokens: res.usage!.prompt_tokens, outputTokens: res.usage!.completion_tokens }),
      })),
    });
    const result = await op.run('hello');
    expect(result.level).toBe(1);
    expect(result.value.model).toBe(FALLBACK);
    expect(result.attempts.map((a) => [a.level, a.ok, a.errorClass])).toEqual([
      [0, false, 'truncated'],
      [1, true, undefined],
    ]);
    expect(result.costUsd).toBeGreaterThan(0);
  });
});

describe('scenario: collector down for the whole test', () => {
  it('leaves model calls unaffected and keeps telemetry memory bounded', async () => {
    // A port that was just closed: connection refused on every push.
    const dead = createServer();
    await new Promise<void>((res) => dead.listen(0, '127.0.0.1', () => res()));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((res) => dead.close(() => res()));

    const fake = await startFakeProvider();
    const bb = createBreakerbox({
      defaults: { retry: FAST_RETRY },
      telemetry: { url: `http://127.0.0.1:${port}`, service: 'test', intervalMs: 50, coalesceMs: 10, maxBufferedEvents: 20, backoffMs: 10, maxBackoffMs: 40 },
    });
    bb.onWarning(() => undefined);
    const client = new OpenAI({ baseURL: fake.openaiBaseUrl, apiKey: fake.apiKey, maxRetries: 0, fetch: bb.fetch() });
    try {
      for (let i = 0; i < 40; i++) {
        const res = await client.chat.completions.create(ask(`model-${i}`));
        expect(res.choices[0]!.finish_reason).toBe('stop');
      }
      await sleep(150);
      const stats = bb.telemetryStats()!;
      expect(stats.sent).toBe(0);
      expect(stats.failures).toBeGreaterThan(0);
      expect(stats.buffered).toBeLessThanOrEqual(40); // the cap, plus at most one in-flight batch taken from it
      expect(stats.dropped).toBeGreaterThan(0);
      await bb.close(50); // bounded even though nothing can be delivered
    } finally {
      await fake.close();
    }
  });
});
