import { describe, expect, it } from 'vitest';
import { Breaker, PASS_PROBE, REFUSED_HALF_OPEN_BUSY, REFUSED_OPEN, type BreakerTransition } from '../../sdk/policies/breaker.ts';
import { DEFAULT_BREAKER_OPTIONS } from '../../sdk/policies/breaker-options.ts';
import { ManualClock } from '../support/manual-clock.ts';

const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const TTL = 60_000;

function make(over: Partial<typeof DEFAULT_BREAKER_OPTIONS> = {}) {
  const clock = new ManualClock();
  // Jitter off: cooldowns are exactly 5 s, 10 s, 20 s, 20 s …
  const b = new Breaker(KEY, { ...DEFAULT_BREAKER_OPTIONS, cooldownJitter: 0, ...over }, clock, () => 0.5);
  const seen: BreakerTransition[] = [];
  b.onStateChange((t) => seen.push(t));
  // Times in the assertions count from the breaker's creation.
  const t0 = clock.now();
  return { clock, b, seen, at: (ms: number) => t0 + ms };
}

/** One half-open trial call: taken, then recorded with `cls` (null: success). */
function trial(b: Breaker, clock: ManualClock, cls: 'server' | null): void {
  expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
  b.record(clock.now(), cls, false, true, false);
}

describe('Breaker under a fleet outage', () => {
  it('still lets its own half-open trial through on its cooldown schedule, so a provider back before the collector knows closes it before the TTL', async () => {
    const { b, clock, seen, at } = make({ halfOpenSuccesses: 2 });
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('applied');
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(TTL), trialAt: at(5_000) });
    await clock.advance(4_999);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
    await clock.advance(1);
    // Reading the state does not spend the trial: the first caller takes it.
    expect(b.state.name).toBe('forced_open');
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
    expect(b.tryPass(clock.now())).toBe(REFUSED_HALF_OPEN_BUSY);
    b.record(clock.now(), null, false, true, false);
    trial(b, clock, null);
    expect(b.state.name).toBe('closed');
    expect(seen.map((t) => `${t.to}:${t.reason}`)).toEqual(['forced_open:fleet_outage', 'half_open:cooldown_elapsed', 'closed:probes_succeeded']);
  });

  it('keeps it open until the TTL after a failed trial, the next trial a grown cooldown later, never past the TTL', async () => {
    const { b, clock, seen, at } = make({ halfOpenSuccesses: 1 });
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    await clock.advance(5_000);
    trial(b, clock, 'server');
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(TTL), trialAt: at(15_000), attempt: 2 });
    expect(seen.at(-1)).toMatchObject({ from: 'half_open', to: 'forced_open', reason: 'probe_failed', cooldownMs: TTL - 5_000 });
    await clock.advance(9_999);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
    await clock.advance(1);
    trial(b, clock, 'server'); // 15 s: next at 35 s
    await clock.advance(20_000);
    trial(b, clock, 'server'); // 35 s: next at 55 s
    await clock.advance(20_000);
    trial(b, clock, 'server'); // 55 s: the next one (75 s) would fall past the TTL
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(TTL) });
    await clock.advance(5_000);
    // The TTL lapsed without renewal: half-open by itself, as before.
    expect(b.state.name).toBe('half_open');
    trial(b, clock, 'server');
    expect(b.state.name).toBe('open');
  });

  it('extends the hold when the outage is renewed during its own trial: a failed trial goes back to forced_open until the new deadline', async () => {
    const { b, clock, at } = make();
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    await clock.advance(5_000);
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('renewed');
    expect(b.state.name).toBe('half_open');
    b.record(clock.now(), 'server', false, true, false);
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(5_000 + TTL) });
  });

  it('ignores renewals of an outage its own trials found over, until it opens on its own again; a new outage applies', async () => {
    const { b, clock } = make({ halfOpenSuccesses: 1, minCalls: 1 });
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    await clock.advance(5_000);
    trial(b, clock, null);
    expect(b.state.name).toBe('closed');
    // The collector's probes lag: it still renews o1. The breaker's own evidence is newer.
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('overruled');
    expect(b.state.name).toBe('closed');
    // The provider fails again and the breaker opens itself: o1 holds it again.
    b.tryPass(clock.now());
    b.record(clock.now(), 'server', false, false, false);
    expect(b.state.name).toBe('open');
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('applied');
    expect(b.state.name).toBe('forced_open');
    b.forceClose();
    // Another outage decision is new evidence.
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o2')).toBe('applied');
  });

  it('keeps the own open schedule when the outage arrives after the breaker opened itself', async () => {
    const { b, clock, at } = make({ minCalls: 1 });
    b.tryPass(clock.now());
    b.record(clock.now(), 'server', false, false, false);
    expect(b.state).toMatchObject({ name: 'open', until: at(5_000) });
    await clock.advance(1_000);
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(1_000 + TTL), trialAt: at(5_000), attempt: 1 });
  });

  it('admits no trial of its own under an on-call drain until the drain lapses', async () => {
    const { b, clock } = make();
    b.fleetOpen(TTL, 'fleet_drain', 'd1');
    expect(b.state).toMatchObject({ name: 'forced_open', trialAt: null });
    await clock.advance(TTL - 1);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
    await clock.advance(1);
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
  });

  it('turns an outage into a drain without trials when on-call drains the key meanwhile', async () => {
    const { b, clock } = make();
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    expect(b.fleetOpen(TTL, 'fleet_drain', 'd1')).toBe('renewed');
    await clock.advance(30_000);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
  });

  it('fails a trial to an ordinary open once the collector declared recovery', async () => {
    const { b, clock } = make();
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    await clock.advance(5_000);
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
    expect(b.fleetHalfOpen('fleet_recovered')).toBe('not_open');
    b.record(clock.now(), 'server', false, true, false);
    expect(b.state.name).toBe('open');
  });
});
