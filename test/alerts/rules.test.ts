import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, ProbeEvent, TelemetryEvent } from '@breakerbox/protocol';
import { MIN, collector, transition, windows, type TestCollector } from '../verdicts/support.ts';

const FLAP: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'Qwen/Qwen2.5-72B-Instruct:turbo' };
const FALLBACK: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const PROBED: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-sonnet-4@20250514' };

let c: TestCollector;
let base: number;
const at = (m: number) => base + m * MIN;

async function alertOf(rule: string, match: (a: any) => boolean = () => true) {
  return (await c.get('/api/alerts')).alerts.find((a: any) => a.rule === rule && match(a));
}

beforeAll(async () => {
  c = await collector();
  base = c.now - 60 * MIN;
  const flaps: TelemetryEvent[] = [transition(FLAP, at(-1), null, 'closed', 'created')];
  for (let m = 10; m <= 40; m += 5) flaps.push(transition(FLAP, at(m), 'closed', 'open'), transition(FLAP, at(m) + 20_000, 'open', 'closed', 'probes_succeeded'));
  await c.send({ service: 'drafts', instance: 'pod-1' }, [...flaps, ...windows(FLAP, at(0), c.now, { calls: 5 })]);
  await c.send({ service: 'drafts', instance: 'pod-2' }, [transition(FLAP, at(-1), null, 'closed', 'created'), ...windows(FLAP, at(0), c.now, { calls: 5 })]);

  await c.send({ service: 'drafts', instance: 'pod-1' }, [
    transition(FALLBACK, at(-1), null, 'closed', 'created'),
    transition(FALLBACK, at(56), 'closed', 'open'),
    ...windows(FALLBACK, at(50), c.now, { calls: 5, short_circuited: 3 }),
    { type: 'tasks', start: at(57), end: at(57) + 10_000, operation: 'draft-reply', completed: 40, failed: 4, degraded: 0, attempts: 60, cost_usd: 2.4, levels: { '0': 0, '1': 40 }, fallback: { invoked: 44, failed: 4 } },
  ]);

  const probe = (m: number, outcome: ProbeEvent['outcome'], errorClass?: ProbeEvent['error_class']): ProbeEvent => ({
    type: 'probe', ts: at(m), key: PROBED, location: 'ap-south', outcome, latency_ms: { total: 200 }, ...(errorClass ? { error_class: errorClass, status: 401 } : {}),
  });
  await c.send({ service: 'prober', instance: 'ap' }, [probe(1, 'error', 'auth'), probe(2, 'error', 'auth'), probe(3, 'error', 'auth'), probe(4, 'ok'), probe(5, 'ok')]);
});
afterAll(() => c.close());

describe('flapping (opens per hour of the worst instance, start 6, stop 2)', () => {
  it('fires with the instance that flaps and how many do', async () => {
    await c.app.alerts.evaluate(c.now);
    const a = await alertOf('flapping');
    expect(a).toMatchObject({ state: 'firing', key: FLAP, value: 7, severity: 'warning' });
    expect(a.summary).toMatch(/^flapping: closed and re-opened 7 times in the last 1 h on pod-1 \(1 of 2 instances flapping\) — /);
  });

  it('stays firing between the stop and start thresholds and resolves at the stop threshold', async () => {
    await c.app.alerts.evaluate(c.now + 22 * MIN);
    expect(await alertOf('flapping')).toMatchObject({ state: 'firing', value: 4 });
    await c.app.alerts.evaluate(c.now + 37 * MIN);
    expect(await alertOf('flapping')).toMatchObject({ state: 'resolved', value: 1, resolved_at: c.now + 37 * MIN });
  });
});

describe('fallback failing', () => {
  it('fires critical when fallbacks fail while the primary is open', async () => {
    await c.app.alerts.evaluate(c.now);
    const a = await alertOf('fallback_failing', (x) => x.key?.model === FALLBACK.model);
    expect(a).toMatchObject({ state: 'firing', severity: 'critical', value: 4 });
    expect(a.summary).toContain('4 of 44 fallback invocations failed in the last 5 min while the breaker was open (open on 1 of 1)');
    expect(await alertOf('fallback_failing', (x) => x.key?.model === FLAP.model)).toBeUndefined();
  });
});

describe('cost per successful task (2x its 24 h baseline, for 10 min)', () => {
  it('is pending first, then fires once it held for its duration', async () => {
    const own = await collector();
    try {
      const task = (start: number, completed: number, cost: number): TelemetryEvent => ({
        type: 'tasks', start, end: start + 10_000, operation: 'draft-reply', completed, failed: 0, degraded: 0, attempts: completed,
        cost_usd: cost, levels: { '0': completed }, fallback: { invoked: 0, failed: 0 },
      });
      await own.send({ service: 'drafts', instance: 'pod-1' }, [task(own.now - 180 * MIN, 100, 1), task(own.now - 3 * MIN, 40, 2.4)]);
      await own.app.alerts.evaluate(own.now);
      const [pending] = (await own.get('/api/alerts')).alerts;
      expect(pending).toMatchObject({ rule: 'cost_per_success', state: 'pending', key: null, operation: 'draft-reply', value: 6, verdict: null });
      expect(pending.summary).toBe('draft-reply: cost per successful task $0.0600 over the last 1 h, 6.0× its 24 h baseline $0.0100');
      await own.app.alerts.evaluate(own.now + 5 * MIN);
      expect((await own.get('/api/alerts')).alerts[0]).toMatchObject({ state: 'pending' });
      await own.app.alerts.evaluate(own.now + 10 * MIN);
      expect((await own.get('/api/alerts')).alerts[0]).toMatchObject({ state: 'firing', started_at: own.now, fired_at: own.now + 10 * MIN });
    } finally {
      await own.close();
    }
  });
});

describe('probe failing (3 in a row fire, 2 ok in a row resolve)', () => {
  it('fires per key and location, says when the probe itself looks misconfigured, and holds on a single ok', async () => {
    await c.app.alerts.evaluate(at(3.5));
    const a = await alertOf('probe_failing');
    expect(a).toMatchObject({ state: 'firing', key: PROBED, location: 'ap-south', value: 3 });
    expect(a.summary).toMatch(/^probe from ap-south failed 3 times in a row \(last: error auth 401\) — the probe itself looks misconfigured — /);
    await c.app.alerts.evaluate(at(4.5));
    expect(await alertOf('probe_failing')).toMatchObject({ state: 'firing' });
    await c.app.alerts.evaluate(at(5.5));
    expect(await alertOf('probe_failing')).toMatchObject({ state: 'resolved', resolved_at: at(5.5) });
  });
});

describe('evaluation schedule', () => {
  it('evaluates on its own every BREAKERBOX_ALERT_INTERVAL_S seconds', async () => {
    const timed = await collector({ env: { BREAKERBOX_ALERT_INTERVAL_S: '1' } });
    try {
      expect(timed.app.config.alerts.interval_s).toBe(1);
      await timed.send({ service: 'prober', instance: 'x' }, [1, 2, 3].map((s) => ({
        type: 'probe' as const, ts: Date.now() - s * 1000, key: PROBED, location: 'x', outcome: 'error' as const, latency_ms: { total: 1 },
      })));
      for (let i = 0; i < 100 && (await timed.get('/api/alerts')).alerts.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await timed.get('/api/alerts?state=firing')).alerts[0]).toMatchObject({ rule: 'probe_failing', location: 'x' });
    } finally {
      await timed.close();
    }
  });
});

describe('probe failing over the whole lookback (the rule reads the last 10 minutes first, then older minutes only for runs still going)', () => {
  it('counts a failed run older than the recent minutes, finds a location that stopped probing, and finishes a run in an older mixed minute', async () => {
    const own = await collector();
    try {
      const key: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-opus-4@20250514' };
      const ago = (m: number) => own.now - m * MIN;
      const probe = (ts: number, location: string, outcome: ProbeEvent['outcome']): ProbeEvent => ({ type: 'probe', ts, key, location, outcome, latency_ms: { total: 200 } });
      const events: ProbeEvent[] = [probe(ago(45), 'eu-west', 'ok')];
      for (let m = 40; m >= 1; m--) events.push(probe(ago(m), 'eu-west', 'error')); // 40 failed in a row, through the recent minutes
      for (let m = 30; m >= 27; m--) events.push(probe(ago(m), 'us-east', 'error')); // then the location stopped probing
      for (const m of [25, 24, 23]) events.push(probe(ago(m), 'ap-east', 'error'));
      events.push(probe(ago(5), 'ap-east', 'ok'), probe(ago(4), 'ap-east', 'ok')); // recovered within the recent minutes
      // Minute 20 ago holds an ok then a failed probe: the failed one is newest, so the run is 3.
      events.push(probe(ago(20) - 50_000, 'eu-north', 'ok'), probe(ago(20) - 20_000, 'eu-north', 'error'), probe(ago(19), 'eu-north', 'error'), probe(ago(18), 'eu-north', 'error'));
      await own.send({ service: 'prober', instance: 'p' }, events);
      await own.app.alerts.evaluate(own.now);
      const probeAlerts = (await own.get('/api/alerts')).alerts.filter((a: any) => a.rule === 'probe_failing');
      expect(probeAlerts.map((a: any) => [a.location, a.state, a.value]).sort()).toEqual([
        ['eu-north', 'firing', 3],
        ['eu-west', 'firing', 40],
        ['us-east', 'firing', 4],
      ]);
    } finally {
      await own.close();
    }
  });
});
