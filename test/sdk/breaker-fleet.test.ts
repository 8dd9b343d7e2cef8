import { describe, expect, it } from 'vitest';
import { Breaker, PASS_PROBE, REFUSED_HALF_OPEN_BUSY, REFUSED_OPEN, type BreakerTransition } from '../../sdk/policies/breaker.ts';
import { DEFAULT_BREAKER_OPTIONS } from '../../sdk/policies/breaker-options.ts';
import { ManualClock } from '../support/manual-clock.ts';

const KEY = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const TTL = 60_000;
/** The cooldown cap (`maxCooldownMs`): under a fleet outage, the longest the breaker goes without a trial of its own. */
const CAP = DEFAULT_BREAKER_OPTIONS.maxCooldownMs;

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
  it('admits no trial of its own for the cooldown cap after an outage holds it: meanwhile the collector\'s probes are the fleet\'s trial', async () => {
    const { b, clock, seen, at } = make();
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('applied');
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(TTL) });
    // Past its first own cooldowns (5 s, 10 s) but short of the cap (20 s): refused, no probe slot spent.
    await clock.advance(CAP - 1);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
    expect(b.state.name).toBe('forced_open');
    // The cap has passed: one capped trial of its own, under the hold.
    await clock.advance(1);
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
    expect(b.tryPass(clock.now())).toBe(REFUSED_HALF_OPEN_BUSY);
    b.record(clock.now(), 'server', false, true, false);
    // Failed: back into the hold (same deadline), the next trial one cap later.
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(TTL) });
    await clock.advance(CAP - 1);
    expect(b.tryPass(clock.now())).toBe(REFUSED_OPEN);
    await clock.advance(1);
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
    expect(seen.map((t) => `${t.to}:${t.reason}`)).toEqual(['forced_open:fleet_outage', 'half_open:cooldown_elapsed', 'forced_open:probe_failed', 'half_open:cooldown_elapsed']);
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

  it('moves the deadline on renewal without a transition, and keeps the schedule of its own trials', async () => {
    const { b, clock, seen, at } = make();
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    await clock.advance(CAP - 1_000);
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('renewed');
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(TTL + CAP - 1_000) });
    // The renewal did not push the trial back: it is due a cap after the hold began.
    await clock.advance(1_000);
    expect(b.tryPass(clock.now())).toBe(PASS_PROBE);
    // A renewal during that trial leaves it running.
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('renewed');
    expect(b.state.name).toBe('half_open');
    b.record(clock.now(), 'server', false, true, false);
    expect(b.state).toMatchObject({ name: 'forced_open', until: at(TTL + CAP) });
    expect(seen.map((t) => t.to)).toEqual(['forced_open', 'half_open', 'forced_open']);
  });

  it('through a 10-minute outage renewed every third of the TTL, never goes longer than the cap without a trial, and closes within the cap and its clean trials once the provider is back', async () => {
    // Seeded jitter (±20%, the default): trials land anywhere from 16 s to 20 s apart.
    let seed = 41;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const clock = new ManualClock();
    const b = new Breaker(KEY, DEFAULT_BREAKER_OPTIONS, clock, random);
    const t0 = clock.now();
    b.fleetOpen(TTL, 'fleet_outage', 'o1');
    const trials: number[] = [];
    let renewals = 0;
    // One call a second, the collector's renewals every 20 s, the provider down for 10 minutes.
    const backAt = t0 + 10 * 60_000 + 7_300;
    let closedAt: number | null = null;
    for (let t = 1_000; t <= 11 * 60_000 && closedAt === null; t += 1_000) {
      await clock.advance(1_000);
      const now = clock.now();
      // The collector has not seen the return yet: it keeps renewing the outage.
      if (t % (TTL / 3) === 0 && b.fleetOpen(TTL, 'fleet_outage', 'o1') === 'renewed') renewals++;
      if (b.tryPass(now) !== PASS_PROBE) continue;
      trials.push(now);
      b.record(now, now >= backAt ? null : 'server', false, true, false);
      if (b.state.name === 'closed') closedAt = now;
    }
    expect(renewals).toBeGreaterThan(25);
    const gaps = [trials[0]! - t0, ...trials.slice(1).map((t, i) => t - trials[i]!)];
    // Calls come every second: a trial is taken at the first call at or after its time.
    expect(Math.max(...gaps)).toBeLessThanOrEqual(CAP + 1_000);
    expect(Math.min(...gaps.filter((g) => g > 1_000))).toBeGreaterThanOrEqual(CAP * 0.8);
    expect(trials.filter((t) => t < backAt).length).toBeGreaterThanOrEqual(30);
    // Back on the primary no later than the cap and three clean calls after the provider's return.
    expect(closedAt).not.toBeNull();
    expect(closedAt! - backAt).toBeLessThanOrEqual(CAP + 1_000 + 3_000);
    // Its own evidence is newer than the collector's: that outage's renewals no longer hold it.
    expect(b.fleetOpen(TTL, 'fleet_outage', 'o1')).toBe('overruled');
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
