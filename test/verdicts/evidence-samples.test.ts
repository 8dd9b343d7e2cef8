/**
 * The verdict's evidence cites up to three failed calls, with their upstream request ids,
 * for keys whose verdict blames the provider or whose clients are degraded — and none for a
 * healthy key, whose samples are not even read.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BreakerKey, CallSample } from '@breakerbox/protocol';
import { MIN, collector, keyQuery, probes, windows, type TestCollector } from './support.ts';
import { EVIDENCE_SAMPLES } from '../../server/verdicts/sample-evidence.ts';

const DOWN: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4', region: 'us' };
const FINE: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini', region: 'us' };
let c: TestCollector;
let from: number;
let to: number;
const clock = (ms: number) => `${new Date(ms).toISOString().slice(11, 19)} UTC`;

const failed = (ts: number, i: number): CallSample => ({
  ts, outcome: 'error', error_class: 'server', status: 529, error_type: 'overloaded_error', upstream_request_id: `req_011C${i}`, attempt: 1, duration_ms: 800,
});

beforeAll(async () => {
  c = await collector();
  from = c.now - 10 * MIN;
  to = c.now;
  const down = windows(DOWN, from, to, { calls: 40, errors: { server: 30 } });
  down.forEach((w, i) => (w.samples = [failed(w.end - 1_000, i)]));
  // A slow success is a sample too, but not a failed call: it is never cited.
  down.at(-1)!.samples!.push({ ts: down.at(-1)!.end - 500, outcome: 'slow', status: 200, attempt: 1, duration_ms: 30_000 });
  const fine = windows(FINE, from, to, { calls: 40, errors: { server: 1 } });
  fine[0]!.samples = [{ ...failed(fine[0]!.end - 1_000, 999), error_class: 'server', status: 500 }];
  await c.send({ service: 'drafts', instance: 'pod-3' }, [...down, ...fine]);
  await c.send({ service: 'prober', instance: 'eu' }, [...probes(DOWN, 'eu-west', from, to, 'error', { error_class: 'server', status: 529 }), ...probes(FINE, 'eu-west', from, to, 'ok')]);
});
afterAll(async () => {
  await c?.close();
});

describe('evidence samples', () => {
  it('cites the latest three failed calls of a provider-blamed key, with request ids, time and sender', async () => {
    const { verdicts } = await c.get<{ verdicts: { key: BreakerKey; verdict: string; evidence: string[] }[] }>(`/api/verdicts?from=${from}&to=${to}`);
    const down = verdicts.find((v) => v.key.model === DOWN.model)!;
    expect(down.verdict).toBe('provider_outage');
    const cited = down.evidence.filter((l) => l.startsWith('sample: '));
    expect(cited).toHaveLength(EVIDENCE_SAMPLES);
    const n = (to - from) / 10_000;
    expect(cited[0]).toBe(`sample: 529 overloaded_error, request id req_011C${n - 1}, ${clock(to - 1_000)} from drafts/pod-3`);
    expect(cited[2]).toContain(`req_011C${n - 3}`);
    // Before the closing "why not" sentence.
    expect(down.evidence.at(-1)).toMatch(/^why not /);

    const fine = verdicts.find((v) => v.key.model === FINE.model)!;
    expect(fine.verdict).toBe('healthy');
    expect(fine.evidence.join('\n')).not.toContain('sample:');
  });

  it('shows the same citations on the key page', async () => {
    const detail = await c.get<{ evidence: string[] }>(`/api/key?${keyQuery(DOWN)}&from=${from}&to=${to}`);
    expect(detail.evidence.filter((l) => l.startsWith('sample: '))).toHaveLength(EVIDENCE_SAMPLES);
  });

  it('reads samples once per verdict run, for the keys that cite them only', async () => {
    // The engine on this thread (/api/verdicts may answer from the read worker's own).
    const spy = vi.spyOn(c.app.storage.samples, 'latestFailed');
    try {
      await c.app.verdicts.verdicts({ from, to });
      expect(spy).toHaveBeenCalledTimes(1);
      const ids = spy.mock.calls[0]![0];
      expect(ids).toEqual([(await c.app.storage.telemetry.findKeyId(DOWN))!]);
    } finally {
      spy.mockRestore();
    }
  });
});
