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
  it('admits no trial of its own while the outage holds: the collector\'s probes are the fleet\'s trial', async () => {
    const { b, clock, at } = make();
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('applied');
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(TTL) });
    // Well past every cooldown of its own (5 s, 10 s, 20 s): still refused, no probe slot spent.
    await clock.advance(TTL - 1);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
    expect(b.state.name).toBe('forced_open');
  });

  it('goes half-open by itself once the TTL lapses without renewal, and a failed trial opens it on its own schedule', async () => {
    const { b, clock, seen, at } = make({ halfOpenSuccesses: 1 });
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    await clock.advance(TTL);
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
    expect(b.tryPass(clock.now())).toBe(REFUSED_HALF_OPEN_BUSY);
    b.record(clock.now(), 'server', false, true, false);
    expect(b.state).toMatchObject({ name: 'open', until: at(TTL + 10_000), attempt: 2 });
    expect(seen.map((t) => `${t.to}:${t.reason}`)).toEqual(['forced_open:fleet_outage', 'half_open:cooldown_elapsed', 'open:probe_failed']);
  });

  it('moves the deadline on renewal, so a renewed outage never lapses', async () => {
    const { b, clock, seen, at } = make();
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    await clock.advance(TTL - 1_000);
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('renewed');
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(2 * TTL - 1_000) });
    await clock.advance(TTL - 1_000);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
    // A renewal is not a transition.
    expect(seen.map((t) => t.to)).toEqual(['forced_open']);
  });

  it('ignores late renewals of an outage that lapsed and its own trials then found over, until it opens on its own again; a new outage applies', async () => {
    const { b, clock } = make({ halfOpenSuccesses: 1, minCalls: 1 });
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    await clock.advance(TTL);
    trial(b, clock, null);
    expect(b.state.name).toBe('closed');
    // A renewal of o1 that was held up: the breaker's own evidence is newer.
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

  it('keeps the consecutive-open count when the outage arrives after the breaker opened itself', async () => {
    const { b, clock, at } = make({ minCalls: 1 });
    b.tryPass(clock.now());
    b.record(clock.now(), 'server', false, false, false);
    expect(b.state).toMatchObject({ name: 'open', until: at(5_000), attempt: 1 });
    await clock.advance(1_000);
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(1_000 + TTL), attempt: 1 });
    await clock.advance(10_000);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
  });

  it('admits no trial under an on-call drain until the drain lapses', async () => {
    const { b, clock } = make();
    b.fleetOpen(TTL, 'fleet_drain', 'd1');
    await clock.advance(TTL - 1);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
    await clock.advance(1);
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
  });

  it('goes half-open at once on recovery, and a failed trial then opens it on its own schedule, not back into the hold', async () => {
    const { b, clock } = make();
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    await clock.advance(5_000);
    expect(b.fleetHalfOpen('fleet_recovered')).toBe('applied');
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
    b.record(clock.now(), 'server', false, true, false);
    expect(b.state.name).toBe('open');
    expect(b.fleetHalfOpen('fleet_recovered')).toBe('applied');
  });
});
