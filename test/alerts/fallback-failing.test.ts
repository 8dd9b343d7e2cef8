/**
 * `fallback_failing` pages when an operation's fallbacks fail, whatever state the primary's
 * breaker is in (docs/alerts.md): chains replayed as the SDK reports them — the primary's
 * `config` event naming its fallbacks, each key's windows, and `tasks` events keyed to the
 * primary — through the real ingest endpoint.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { ManualClock } from '../support/manual-clock.ts';
import { MIN, collector, transition, windows, type TestCollector, type Traffic } from '../verdicts/support.ts';

const END = Date.parse('2026-12-03T09:00:05Z');

let open: TestCollector[] = [];
afterEach(async () => {
  for (const c of open) await c.close();
  open = [];
});

interface Chain {
  primary: BreakerKey;
  fallbacks: BreakerKey[];
  /** Per 10-second window: tasks run, the primary's traffic, each fallback's traffic, fallbacks invoked and failed. */
  tasks: number;
  primaryTraffic: Traffic;
  fallbackTraffic: Traffic[];
  invoked: number;
  failed: number;
}

/** Five minutes of one chain on one pod, as the SDK reports it: config, windows of every key, tasks keyed to the primary. */
function chainEvents(now: number, ch: Chain, extra: TelemetryEvent[] = []): TelemetryEvent[] {
  const from = now - 5 * MIN;
  const tasks: TelemetryEvent[] = [];
  for (let start = from; start + 10_000 <= now; start += 10_000) {
    tasks.push({
      type: 'tasks', start, end: start + 10_000, operation: 'answer-ticket', completed: ch.tasks - ch.failed, failed: ch.failed, degraded: 0,
      attempts: ch.tasks + ch.invoked, cost_usd: 0.02, levels: { '0': ch.tasks - ch.invoked, '1': ch.invoked - ch.failed }, fallback: { invoked: ch.invoked, failed: ch.failed }, key: ch.primary,
    });
  }
  return [
    { type: 'config', ts: from - MIN, key: ch.primary, settings: { max_concurrent: 8 }, fallbacks: ch.fallbacks, warnings: [] },
    transition(ch.primary, from - MIN, null, 'closed', 'created'),
    ...windows(ch.primary, from, now, ch.primaryTraffic),
    ...ch.fallbacks.flatMap((fb, i) => [transition(fb, from - MIN, null, 'closed', 'created'), ...windows(fb, from, now, ch.fallbackTraffic[i] ?? { calls: ch.invoked })]),
    ...extra,
    ...tasks,
  ];
}

async function replay(ch: Chain, extra: (now: number) => TelemetryEvent[] = () => []) {
  const c = await collector({ clock: new ManualClock(END) });
  open.push(c);
  await c.send({ service: 'support-bot', instance: 'pod-1' }, chainEvents(c.now, ch, extra(c.now)));
  await c.app.alerts.evaluate();
  return (await c.get('/api/alerts')).alerts.find((a: any) => a.rule === 'fallback_failing' && a.key?.model === ch.primary.model);
}

const GPT: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const HAIKU: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku-latest' };
const GEMINI: BreakerKey = { provider: 'google', endpoint: 'generateContent', model: 'gemini-2.0-flash' };
const BEDROCK: BreakerKey = { provider: 'bedrock', endpoint: 'converse', model: 'anthropic.claude-3-haiku-20240307-v1:0', region: 'us-east-1' };

describe('fallback_failing with the primary breaker closed', () => {
  it('context_length on the primary (it falls back, the breaker never opens) and on the fallback: every task fails, it pages critical naming both', async () => {
    const a = await replay({ primary: GPT, fallbacks: [HAIKU], tasks: 2, primaryTraffic: { calls: 2, errors: { context_length: 2 } }, fallbackTraffic: [{ calls: 2, errors: { context_length: 2 } }], invoked: 2, failed: 2 });
    expect(a).toMatchObject({ state: 'firing', severity: 'critical', value: 60 });
    expect(a.summary).toContain(
      '60 of 60 fallback invocations failed in the last 5 min with the breaker closed on all 1 (100%): primary failed with context_length 60; fallback #1 anthropic/messages/claude-3-5-haiku-latest failed 60 of 60 calls (context_length 60)',
    );
  });

  it('a full bulkhead on the primary moves calls past a first fallback whose breaker is open to a second that times out: names both levels and how each failed', async () => {
    const a = await replay(
      { primary: GEMINI, fallbacks: [HAIKU, BEDROCK], tasks: 6, primaryTraffic: { calls: 3, rejected: 3 }, fallbackTraffic: [{ calls: 0, short_circuited: 3 }, { calls: 3, errors: { timeout: 3 } }], invoked: 3, failed: 3 },
      (now) => [transition(HAIKU, now - 5 * MIN - 30_000, 'closed', 'open')],
    );
    expect(a).toMatchObject({ state: 'firing', value: 90 });
    expect(a.summary).toContain(
      '90 of 90 fallback invocations failed in the last 5 min with the breaker closed on all 1 (100%): no failed primary call; fallback #1 anthropic/messages/claude-3-5-haiku-latest open, refused 90 calls; fallback #2 bedrock/converse/anthropic.claude-3-haiku-20240307-v1:0 (us-east-1) failed 90 of 90 calls (timeout 90)',
    );
  });

  it('stays quiet under the share: 30 of 180 fallbacks failing (17% < 50%) with the breaker closed', async () => {
    // Every prompt too long for the primary; the fallback's larger context takes all but one in six.
    const a = await replay({ primary: GPT, fallbacks: [HAIKU], tasks: 6, primaryTraffic: { calls: 6, errors: { context_length: 6 } }, fallbackTraffic: [{ calls: 6, errors: { context_length: 1 } }], invoked: 6, failed: 1 });
    expect(a).toBeUndefined();
  });
});

describe('fallback_failing with the primary breaker open', () => {
  it('still fires on a few failures (min_failures), below the share', async () => {
    // The primary's breaker opened on 503s before the window: its half-open trial fails, the rest are refused.
    const a = await replay(
      { primary: GPT, fallbacks: [HAIKU], tasks: 6, primaryTraffic: { calls: 1, errors: { server: 1 }, short_circuited: 5 }, fallbackTraffic: [{ calls: 6, errors: { rate_limit: 1 } }], invoked: 6, failed: 1 },
      (now) => [transition(GPT, now - 5 * MIN - 30_000, 'closed', 'open')],
    );
    expect(a).toMatchObject({ state: 'firing', severity: 'critical', value: 30 });
    expect(a.summary).toContain('30 of 180 fallback invocations failed in the last 5 min while the breaker was open (open on 1 of 1) (17%): primary failed with server 30; fallback #1 anthropic/messages/claude-3-5-haiku-latest failed 30 of 180 calls (rate_limit 30)');
  });
});
