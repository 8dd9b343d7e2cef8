/**
 * No guess presented as a verdict, on the server clock: while the probes asked for a
 * degrading key have not answered, its verdict is `insufficient_data` / `probes_pending`
 * naming the locations asked and when; once they answer it is decided on them; without an
 * answer it never turns self-inflicted on probes older than the degradation. Its first page
 * waits (`alerts.group_wait_s`) for the answer, then pages with what is known.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BreakerKey, TelemetryEvent } from '@breakerbox/protocol';
import { manualClock, type ManualServerClock } from '../../server/clock.ts';
import { receiver, type Receiver } from '../alerts/receiver.ts';
import { MIN, collector, probes, transition, windows, type TestCollector } from '../verdicts/support.ts';

const START = Date.parse('2025-06-01T00:00:00Z');
const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o@2024-08-06' };
const PODS = ['pod-1', 'pod-2', 'pod-3'];
const LOCATIONS = ['eu-west', 'us-east'];

let c: TestCollector | undefined;
let hook: Receiver | undefined;
afterEach(async () => {
  await c?.close();
  await hook?.close();
  c = undefined;
  hook = undefined;
});

/** The webhook notifier of the paging tests, to a receiver in the test (made here). */
async function hookNotifiers(): Promise<Record<string, unknown>[]> {
  hook = await receiver();
  return [{ name: 'hook', type: 'webhook', url: `${hook.url}/hook`, min_severity: 'info', retries: 0 }];
}

/** Paging on any open time (open_share fires at 0.2 %), to a receiver in the test. */
const pagingConfig = async () => ({
  alerts: { rules: { open_share: { fire_share: 0.002, resolve_share: 0.001 } } },
  notifiers: await hookNotifiers(),
});

/**
 * A collector on the manual clock at START with 15 healthy minutes of three pods and of
 * both probe locations (scheduled probes once a minute, the last at START − 55 s); from
 * START − `failingForMs` two of the pods fail at the provider, and their breakers open at
 * START − `openForMs` — after the last probes, so those alone would say self_inflicted.
 */
async function degradingKey(o: { failingForMs: number; openForMs: number; config?: Record<string, unknown> }): Promise<{ c: TestCollector; clock: ManualServerClock }> {
  const clock = manualClock(START);
  c = await collector({ clock, config: o.config ?? {} });
  const from = START - 15 * MIN;
  for (const pod of PODS) {
    const failing = pod !== 'pod-3';
    await c.send({ service: 'ticket-drafts', instance: pod }, [
      transition(KEY, from - MIN, null, 'closed', 'created'),
      ...windows(KEY, from, START - o.failingForMs, { calls: 10 }),
      ...windows(KEY, START - o.failingForMs, START, failing ? { calls: 10, errors: { server: 8 } } : { calls: 10 }),
      ...(failing ? [transition(KEY, START - o.openForMs, 'closed', 'open')] : []),
    ]);
  }
  for (const location of LOCATIONS) await c.send({ service: 'probe', instance: location }, probes(KEY, location, from, START, 'ok'));
  return { c, clock };
}

/**
 * Degrading for 20 s, open for 12 s — on the probes from before it alone, the verdict would
 * be self_inflicted (local: the wrong first page); the trigger runs at START and asks
 * both locations.
 */
async function degrading(config: Record<string, unknown> = {}): Promise<{ c: TestCollector; clock: ManualServerClock }> {
  const { c, clock } = await degradingKey({ failingForMs: 20_000, openForMs: 12_000, config });
  const opened = (await c.app.suspicion.evaluate(START)).opened;
  expect(opened.map((s) => [s.startedAt, s.locations])).toEqual([[START - 20_000, LOCATIONS]]);
  return { c, clock };
}

/** The burst's answers: three probes per location at START + 1, 4 and 7 s, marked as asked for. */
async function answer(outcome: 'ok' | 'error') {
  for (const location of LOCATIONS) {
    const events: TelemetryEvent[] = [1_000, 4_000, 7_000].map((dt) => ({
      type: 'probe', ts: START + dt, key: KEY, location, outcome, trigger: 'suspicion',
      latency_ms: { total: 300 }, ...(outcome === 'error' ? { error_class: 'server' as const, status: 503 } : {}),
    }));
    await c!.send({ service: 'probe', instance: location }, events);
  }
}

const pages = () => hook!.received.map((r) => r.body);

async function verdictAt(to: number) {
  const { verdicts } = await c!.get(`/api/verdicts?from=${to - 15 * MIN}&to=${to}`);
  return verdicts.find((v: any) => v.key.model === KEY.model);
}

describe('the verdict of a key whose probes were asked for', () => {
  it('is insufficient_data / probes_pending, naming the locations asked and when, until they answer; then decided on their probes', async () => {
    const { clock } = await degrading();
    clock.advance(2_000);
    const held = await verdictAt(START + 2_000);
    expect([held.verdict, held.hint]).toEqual(['insufficient_data', 'probes_pending']);
    expect(held.evidence.join('\n')).toContain('probes asked of eu-west and us-east at 00:00:00 UTC, not yet answered by eu-west and us-east');
    expect(held.evidence.join('\n')).toContain('they alone would say self_inflicted');

    clock.advance(8_000);
    await answer('error');
    const decided = await verdictAt(START + 10_000);
    expect(decided.verdict).toBe('provider_outage');
  });

  it('stands on the fresh probes when they are served: self-inflicted then rests on probes newer than the degradation', async () => {
    const { clock } = await degrading();
    clock.advance(10_000);
    await answer('ok');
    const decided = await verdictAt(START + 10_000);
    expect([decided.verdict, decided.hint]).toEqual(['self_inflicted', 'local']);
  });

  it('never turns self-inflicted on older probes when no asked probe answers: probes_stale after pending_max_s', async () => {
    const { clock } = await degrading();
    clock.advance(44_000);
    expect((await verdictAt(START + 44_000)).hint).toBe('probes_pending');
    clock.advance(2_000);
    const stale = await verdictAt(START + 46_000);
    expect([stale.verdict, stale.hint]).toEqual(['insufficient_data', 'probes_stale']);
    expect(stale.evidence.join('\n')).toContain('no probe since the clients began to degrade at 23:59:40 UTC');
  });
});

describe('a key failing on several instances at once, whose window still reads healthy', () => {
  /** 15 healthy minutes, then every pod's first failing window, reported at its onset 2 s into the outage; the trigger asks at START. */
  async function onset() {
    const clock = manualClock(START);
    c = await collector({ clock });
    const from = START - 15 * MIN;
    for (const pod of PODS) {
      const first = windows(KEY, START - 10_000, START, { calls: 4, errors: { server: 4 } }).map((w) => ({ ...w, start: START - 2_000 }));
      await c.send({ service: 'ticket-drafts', instance: pod }, [transition(KEY, from - MIN, null, 'closed', 'created'), ...windows(KEY, from, START - 2_000, { calls: 10 }), ...first]);
    }
    for (const location of LOCATIONS) await c.send({ service: 'probe', instance: location }, probes(KEY, location, from, START, 'ok'));
    expect((await c.app.suspicion.evaluate(START)).opened.map((x) => x.reason)).toEqual(['instances_failing']);
    return clock;
  }

  it('is a provider outage once the probes asked for fail, naming when the clients began to fail, though the window is 99 % healthy', async () => {
    const clock = await onset();
    clock.advance(1_000);
    expect((await verdictAt(START + 1_000)).verdict).toBe('healthy');
    clock.advance(9_000);
    await answer('error');
    const decided = await verdictAt(START + 10_000);
    expect(decided.verdict).toBe('provider_outage');
    expect(decided.evidence.join('\n')).toContain('clients degraded: failing since 23:59:58 UTC (provider-side errors on several instances at once), confirmed by the probes asked for then');
  });

  it('stays healthy when the probes asked for pass', async () => {
    const clock = await onset();
    clock.advance(10_000);
    await answer('ok');
    expect((await verdictAt(START + 10_000)).verdict).toBe('healthy');
  });

  it('does not lean on a suspicion older than pending_max_s, even with failing probes since', async () => {
    const clock = await onset();
    clock.advance(10_000);
    await answer('error');
    clock.advance(40_000);
    // 50 s after the trigger: the window alone decides again (still 96 % healthy calls here).
    const later = await verdictAt(START + 50_000);
    expect(later.verdict).not.toBe('provider_outage');
  });
});

describe('the first page of such a key (group_wait)', () => {
  const paging = async () => degrading(await pagingConfig());
  const evaluate = async (at: number) => {
    await c!.app.alerts.evaluate(at);
    await c!.app.alerts.idle();
  };

  it('waits for the asked probes and pages the cause they show', async () => {
    const { clock } = await paging();
    clock.advance(1_000);
    await evaluate(START + 1_000);
    const { alerts } = await c!.get('/api/alerts?state=firing');
    expect(alerts.map((a: any) => [a.rule, a.hint])).toEqual([['open_share', 'probes_pending']]);
    expect(pages()).toEqual([]);

    clock.advance(11_000);
    await answer('error');
    await evaluate(START + 12_000);
    expect(pages()).toHaveLength(1);
    expect(pages()[0]).toMatchObject({ event: 'firing', group: { title: 'openai: gpt-4o@2024-08-06, provider outage', incident: { verdict: 'provider_outage' } } });
  });

  it('pages with what is known once group_wait_s has passed, and never says self-inflicted', async () => {
    const { clock } = await paging();
    clock.advance(1_000);
    await evaluate(START + 1_000);
    clock.advance(29_000);
    await evaluate(START + 30_000);
    expect(pages()).toEqual([]);

    clock.advance(1_000);
    await evaluate(START + 31_000);
    expect(pages()).toHaveLength(1);
    const [page] = pages();
    expect(page.event).toBe('firing');
    expect(page.alert.summary).toContain('probes asked of eu-west and us-east at 00:00:00 UTC, eu-west and us-east not answered yet: cause not decided (probes_pending)');

    // Past pending_max_s with still no answer: the summary says the probes are stale, not who is to blame.
    clock.advance(20_000);
    await evaluate(START + 51_000);
    const { alerts } = await c!.get('/api/alerts?state=firing');
    expect(alerts.map((a: any) => a.hint)).toEqual(['probes_stale']);
    expect(alerts[0].summary).toContain('no probe since the degradation began at 23:59:40 UTC: cause not decided (probes_stale)');
    for (const text of [...pages().map((p) => JSON.stringify(p)), alerts[0].summary]) expect(text).not.toMatch(/self-inflicted/);
  });

  it('does not hold or page a blip: a breaker open for two seconds asks for nothing', async () => {
    const clock = manualClock(START);
    c = await collector({ clock, config: { notifiers: await hookNotifiers() } });
    for (const pod of PODS) {
      await c.send({ service: 'ticket-drafts', instance: pod }, [
        transition(KEY, START - 16 * MIN, null, 'closed', 'created'),
        ...windows(KEY, START - 15 * MIN, START, { calls: 10 }),
        transition(KEY, START - 30_000, 'closed', 'open'),
        transition(KEY, START - 28_000, 'open', 'closed', 'probes_succeeded'),
      ]);
    }
    for (const location of LOCATIONS) await c.send({ service: 'probe', instance: location }, probes(KEY, location, START - 15 * MIN, START, 'ok'));
    expect((await c.app.suspicion.evaluate(START)).opened).toEqual([]);
    await evaluate(START);
    expect(pages()).toEqual([]);
    expect((await verdictAt(START)).hint).not.toBe('probes_pending');
  });
});

describe('probe_failing on a burst', () => {
  it('counts failed probes asked for right after an ok scheduled one in the same minute', async () => {
    const clock = manualClock(START);
    c = await collector({ clock });
    await c.send({ service: 'ticket-drafts', instance: 'pod-1' }, [transition(KEY, START - 16 * MIN, null, 'closed', 'created'), ...windows(KEY, START - 15 * MIN, START, { calls: 10 })]);
    for (const location of LOCATIONS) {
      // The last scheduled probe (ok) at START − 55 s, then three failed ones in the same minute.
      const burst: TelemetryEvent[] = [50_000, 47_000, 44_000].map((dt) => ({
        type: 'probe', ts: START - dt, key: KEY, location, outcome: 'error', error_class: 'server', status: 503, trigger: 'suspicion', latency_ms: { total: 80 },
      }));
      await c.send({ service: 'probe', instance: location }, [...probes(KEY, location, START - 15 * MIN, START, 'ok'), ...burst]);
    }
    await c.app.alerts.evaluate(START);
    const { alerts } = await c.get('/api/alerts?state=firing');
    expect(alerts.filter((a: any) => a.rule === 'probe_failing').map((a: any) => [a.location, a.value]).sort()).toEqual([
      ['eu-west', 3],
      ['us-east', 3],
    ]);
  });
});

describe('before the trigger has asked', () => {
  it('holds a key whose breaker just opened after the last probes, so the alert firing on the open waits for the probes', async () => {
    const { c, clock } = await degradingKey({ failingForMs: 10_000, openForMs: 3_000, config: await pagingConfig() });
    // Open for 3 s: below min_open_s, and one failing window: the trigger asks nothing yet.
    expect((await c.app.suspicion.evaluate(START)).opened).toEqual([]);
    const held = await verdictAt(START);
    expect([held.verdict, held.hint]).toEqual(['insufficient_data', 'probes_pending']);
    expect(held.evidence.join('\n')).toContain('a breaker has been open since 23:59:57 UTC');
    await c.app.alerts.evaluate(START);
    await c.app.alerts.idle();
    const { alerts } = await c.get('/api/alerts?state=firing');
    expect(alerts.map((a: any) => [a.rule, a.hint])).toEqual([['open_share', 'probes_pending']]);
    expect(alerts[0].summary).toContain('breaker open since 23:59:57 UTC, after the last probes; probes about to be asked');
    expect(pages()).toEqual([]);

    // The trigger asks once the breaker has been open 5 s; the burst fails: the first page names the outage.
    clock.advance(2_000);
    expect((await c.app.suspicion.evaluate(START + 2_000)).opened).toHaveLength(1);
    clock.advance(10_000);
    await answer('error');
    await c.app.alerts.evaluate(START + 12_000);
    await c.app.alerts.idle();
    expect(pages().map((p) => [p.event, p.group.incident?.verdict])).toEqual([['firing', 'provider_outage']]);
  });
});
