/**
 * A model swapped behind its name is an event (issue 39): a change of the probes'
 * `system_fingerprint` (or `model_served`) shows on the key's timeline (`/api/key`), the same
 * version again is no change, probes that arrive late are placed by their event time, and a
 * degraded verdict names a change within `served_change_lookback_s` — a healthy key's does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { MIN, collector, keyQuery, probes, windows, type TestCollector } from './support.ts';
import { servedChanges } from '../../server/verdicts/served-changes.ts';

const SWAPPED: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o', region: 'us' };
const HEALTHY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini', region: 'us' };
const LATE: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4.1', region: 'us' };
const CALLED: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'o3', region: 'us' };
const clock = (ms: number) => `${new Date(ms).toISOString().slice(11, 19)} UTC`;
const v = (model_served: string | null, system_fingerprint: string | null) => ({ model_served, system_fingerprint });

let c: TestCollector;
let from: number;
let to: number;
let swapAt: number;

beforeAll(async () => {
  c = await collector();
  to = c.now;
  from = to - 60 * MIN;
  swapAt = to - 30 * MIN;
  const served = (fp: string) => ({ model_served: 'gpt-4o-2024-08-06', system_fingerprint: fp });
  // Fingerprint fp_a for half an hour, then fp_b; the clients of SWAPPED fail after the swap.
  await c.send({ service: 'prober', instance: 'eu' }, [
    ...probes(SWAPPED, 'eu-west', from, swapAt, 'ok', served('fp_a')),
    ...probes(SWAPPED, 'eu-west', swapAt, to, 'ok', served('fp_b')),
    ...probes(HEALTHY, 'eu-west', from, swapAt, 'ok', served('fp_a')),
    ...probes(HEALTHY, 'eu-west', swapAt, to, 'ok', served('fp_b')),
  ]);
  await c.send({ service: 'drafts', instance: 'pod-1' }, [
    ...windows(SWAPPED, from, swapAt, { calls: 40 }),
    ...windows(SWAPPED, swapAt, to, { calls: 40, errors: { invalid_output: 20 } }),
    ...windows(HEALTHY, from, to, { calls: 40 }),
  ]);
  // LATE: fp_a then fp_b sent first; a probe of the fp_a period arrives afterwards.
  const late = [...probes(LATE, 'eu-west', from, swapAt, 'ok', served('fp_a')), ...probes(LATE, 'eu-west', swapAt, to, 'ok', served('fp_b'))];
  const straggler = late.splice(10, 1);
  await c.send({ service: 'prober', instance: 'eu' }, late);
  await c.send({ service: 'prober', instance: 'eu' }, straggler);
  // CALLED: no probes; its SDK's failed-call samples name o3-2025-04-16, then o3-2025-06-01.
  const called = windows(CALLED, from, to, { calls: 10, errors: { invalid_output: 1 } });
  called.forEach((w) => (w.samples = [{ ts: w.end - 1_000, outcome: 'error', error_class: 'invalid_output', status: 200, attempt: 1, duration_ms: 400, model_served: w.end <= swapAt ? 'o3-2025-04-16' : 'o3-2025-06-01' }]));
  await c.send({ service: 'drafts', instance: 'pod-2' }, called);
});
afterAll(async () => {
  await c?.close();
});

describe('served-model changes', () => {
  it('shows a changed system_fingerprint on the key timeline with time, from and to, once', async () => {
    const detail = await c.get<{ served_changes: unknown[] }>(`/api/key?${keyQuery(SWAPPED)}&from=${from}&to=${to}`);
    // The same fingerprint on the 29 probes after the first fp_b is no new change.
    expect(detail.served_changes).toEqual([
      { ts: swapAt + 5_000, seen_in: 'probe', by: 'eu-west', from: v('gpt-4o-2024-08-06', 'fp_a'), to: v('gpt-4o-2024-08-06', 'fp_b') },
    ]);
  });

  it('lists no change in a window after it, and finds the version in force before a window that starts at it', async () => {
    const after = await c.get<{ served_changes: unknown[] }>(`/api/key?${keyQuery(SWAPPED)}&from=${swapAt + 10 * MIN}&to=${to}`);
    expect(after.served_changes).toEqual([]);
    const at = await c.get<{ served_changes: { ts: number }[] }>(`/api/key?${keyQuery(SWAPPED)}&from=${swapAt}&to=${to}`);
    expect(at.served_changes.map((x) => x.ts)).toEqual([swapAt + 5_000]);
  });

  it('places a probe that arrived late by its event time: no flip-flop', async () => {
    const detail = await c.get<{ served_changes: { ts: number; from: unknown; to: unknown }[] }>(`/api/key?${keyQuery(LATE)}&from=${from}&to=${to}`);
    expect(detail.served_changes).toHaveLength(1);
    expect(detail.served_changes[0]).toMatchObject({ ts: swapAt + 5_000, from: v('gpt-4o-2024-08-06', 'fp_a'), to: v('gpt-4o-2024-08-06', 'fp_b') });
  });

  it("shows a change of the served model named by the SDK's call samples", async () => {
    const detail = await c.get<{ served_changes: unknown[] }>(`/api/key?${keyQuery(CALLED)}&from=${from}&to=${to}`);
    expect(detail.served_changes).toEqual([{ ts: swapAt + 9_000, seen_in: 'call', by: 'drafts/pod-2', from: v('o3-2025-04-16', null), to: v('o3-2025-06-01', null) }]);
  });

  it('names the change in the evidence of a verdict degraded after it', async () => {
    const { verdicts } = await c.get<{ verdicts: { key: BreakerKey; verdict: string; evidence: string[] }[] }>(`/api/verdicts?from=${to - 10 * MIN}&to=${to}`);
    const swapped = verdicts.find((x) => x.key.model === SWAPPED.model)!;
    expect(swapped.verdict).not.toBe('healthy');
    const line = `served model changed from gpt-4o-2024-08-06 (system_fingerprint fp_a) to gpt-4o-2024-08-06 (system_fingerprint fp_b) at ${clock(swapAt + 5_000)} (probe from eu-west)`;
    expect(swapped.evidence).toContain(line);
    // Before the closing "why not" sentence.
    expect(swapped.evidence.at(-1)).toMatch(/^why not /);
    const detail = await c.get<{ evidence: string[] }>(`/api/key?${keyQuery(SWAPPED)}&from=${to - 10 * MIN}&to=${to}`);
    expect(detail.evidence).toContain(line);

    // The same change behind a healthy key is on its timeline but not in its evidence.
    const healthy = verdicts.find((x) => x.key.model === HEALTHY.model)!;
    expect(healthy.verdict).toBe('healthy');
    expect(healthy.evidence.join('\n')).not.toContain('served model changed');
    const healthyDetail = await c.get<{ served_changes: unknown[] }>(`/api/key?${keyQuery(HEALTHY)}&from=${from}&to=${to}`);
    expect(healthyDetail.served_changes).toHaveLength(1);
  });

  it('names no change older than served_change_lookback_s', async () => {
    const short = await collector({ config: { verdicts: { served_change_lookback_s: 600 } } });
    try {
      const t = short.now;
      const at = t - 30 * MIN;
      await short.send({ service: 'prober', instance: 'eu' }, [
        ...probes(SWAPPED, 'eu-west', t - 60 * MIN, at, 'ok', { model_served: 'gpt-4o-2024-08-06' }),
        ...probes(SWAPPED, 'eu-west', at, t, 'ok', { model_served: 'gpt-4o-2024-11-20' }),
      ]);
      await short.send({ service: 'drafts', instance: 'pod-1' }, windows(SWAPPED, t - 10 * MIN, t, { calls: 40, errors: { invalid_output: 20 } }));
      const { verdicts } = await short.get<{ verdicts: { key: BreakerKey; verdict: string; evidence: string[] }[] }>(`/api/verdicts?from=${t - 10 * MIN}&to=${t}`);
      const swapped = verdicts.find((x) => x.key.model === SWAPPED.model)!;
      expect(swapped.verdict).not.toBe('healthy');
      expect(swapped.evidence.join('\n')).not.toContain('served model changed');
      // The change is there, on the timeline: only too old for the evidence.
      const detail = await short.get<{ served_changes: { ts: number }[] }>(`/api/key?${keyQuery(SWAPPED)}&from=${t - 60 * MIN}&to=${t}`);
      expect(detail.served_changes.map((x) => x.ts)).toEqual([at + 5_000]);
    } finally {
      await short.close();
    }
  });
});

describe('servedChanges', () => {
  const s = (ts: number, modelServed: string | null, systemFingerprint: string | null, by = 'eu-west') => ({ ts, seenIn: 'probe' as const, by, modelServed, systemFingerprint });

  it('carries a field a probe does not name over, and counts a model change without a fingerprint', () => {
    const changes = servedChanges([s(1, 'claude-a', null), s(2, null, null), s(3, 'claude-a', null), s(4, 'claude-b', null), s(5, 'claude-b', null)], 0);
    expect(changes).toEqual([{ ts: 4, seen_in: 'probe', by: 'eu-west', from: v('claude-a', null), to: v('claude-b', null) }]);
  });

  it('sets the version in force from sightings before the range without listing their changes', () => {
    expect(servedChanges([s(1, 'm', 'fp_a'), s(2, 'm', 'fp_b'), s(10, 'm', 'fp_b'), s(11, 'm', 'fp_c')], 10).map((c) => c.ts)).toEqual([11]);
  });

  it('keeps the newest changes when there are more than the limit', () => {
    const alternating = Array.from({ length: 10 }, (_, i) => s(i, 'm', i % 2 === 0 ? 'fp_a' : 'fp_b'));
    expect(servedChanges(alternating, 0, 3).map((c) => c.ts)).toEqual([7, 8, 9]);
  });
});
