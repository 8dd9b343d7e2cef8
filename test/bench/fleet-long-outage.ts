/**
 * The fleet feed's long outage (issue 41, "The feed never slows recovery"): the failover run
 * (test/bench/fleet-failover.ts) with the primary down for 10 minutes, with the feed and
 * without it side by side (both stacks in this process at once, so they share the machine's
 * load). One outage has one end; to say how soon each fleet would have been back had the
 * provider returned at any moment of it, the figures replay the measured schedule: for a
 * return at instant t (every 250 ms of each minute), an instance learns of it at its next own
 * trial after t, or — with the feed — when every deciding location has probed after t plus
 * the measured push delay, whichever is first; an instance not yet open is back at once. The
 * fleet has learnt when the median instance has. Closing afterwards takes the same
 * consecutive clean trial calls on both sides, so it is left out of these figures and shown
 * once, measured, at the outage's real end.
 */
import { LOCATIONS, failoverRun, type FailoverFigures, type FailoverSeries } from './fleet-failover.ts';

const MINUTE = 60_000;
const STEP_MS = 250;

/** One minute of the outage, one fleet. */
export interface MinuteFigures {
  /** The longest time, over every return instant in the minute, until the fleet (median instance) learns of it, s. */
  worstS: number;
  /** The mean of the same over the minute, s. */
  meanS: number;
  /** Own half-open trials the instances took in the minute. */
  trials: number;
  /** Probes of the primary from all locations in the minute (scheduled, on suspicion, recovery). */
  probes: number;
  /** The application's attempts on the primary in the minute. */
  attempts: number;
}

const firstAtOrAfter = (sorted: readonly number[], t: number): number => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return sorted[lo] ?? Infinity;
};

/** Per-minute figures of one run (see the file's comment for the replay). */
export function perMinute(s: FailoverSeries, pushLagMs: number): MinuteFigures[] {
  // An own trial: the breaker goes half-open from an open or forced-open state by its own clock.
  const trials = s.transitions.filter((t) => t.to === 'half_open' && t.reason === 'cooldown_elapsed');
  const trialsOf = Array.from({ length: s.instances }, (_, pod) => trials.filter((t) => t.pod === pod).map((t) => t.at).sort((a, b) => a - b));
  const firstOpenOf = Array.from({ length: s.instances }, (_, pod) => s.transitions.find((t) => t.pod === pod && t.at >= s.t0 && (t.to === 'open' || t.to === 'forced_open'))?.at ?? Infinity);
  const probesOf = LOCATIONS.map((l) => s.probes.filter((p) => p.location === l).map((p) => p.ts).sort((a, b) => a - b));
  const heldAt = s.transitions.some((t) => t.to === 'forced_open') ? 0 : Infinity;
  const out: MinuteFigures[] = [];
  for (let m = 0; m * MINUTE < s.t1 - s.t0; m++) {
    const from = s.t0 + m * MINUTE;
    const to = Math.min(s.t1, from + MINUTE);
    let worst = 0;
    let sum = 0;
    let n = 0;
    for (let t = from; t < to; t += STEP_MS) {
      // The collector sees a return once every deciding location has probed after it.
      const seen = heldAt === 0 ? Math.max(...probesOf.map((p) => firstAtOrAfter(p, t))) + pushLagMs : Infinity;
      const learns = trialsOf.map((own, pod) => (firstOpenOf[pod]! > t ? t : Math.min(firstAtOrAfter(own, t), seen))).sort((a, b) => a - b);
      const wait = learns[Math.floor(learns.length / 2)]! - t;
      worst = Math.max(worst, wait);
      sum += wait;
      n++;
    }
    const inMinute = (ts: number) => ts >= from && ts < to;
    out.push({
      worstS: worst / 1000,
      meanS: sum / n / 1000,
      trials: trials.filter((t) => inMinute(t.at)).length,
      probes: s.probes.filter((p) => inMinute(p.ts)).length,
      attempts: s.primaryAttempts.filter(inMinute).length,
    });
  }
  return out;
}

/** The push delay measured at the real end: from every location's first ok probe to the first `recovered` applied, ms (1 s if not seen). */
function pushLagOf(r: FailoverFigures): number {
  const s = r.series;
  const firstOk = LOCATIONS.map((l) => s.probes.find((p) => p.location === l && p.outcome === 'ok' && p.ts >= s.t1)?.ts);
  if (s.recoveredAppliedAt === null || firstOk.some((t) => t === undefined)) return 1_000;
  return Math.max(0, s.recoveredAppliedAt - Math.max(...(firstOk as number[])));
}

/** Runs the long outage with the feed and without it at once and prints the minutes side by side. */
export async function longOutage(outageMs: number, log: (line: string) => void): Promise<void> {
  const [on, off] = await Promise.all([failoverRun(true, log, { outageMs, afterMs: 90_000 }), failoverRun(false, log, { outageMs, afterMs: 90_000 })]);
  const lag = pushLagOf(on);
  const a = perMinute(on.series, lag);
  const b = perMinute(off.series, 0);
  log(`time until the fleet (median instance) learns of a provider return at any instant of the minute, s (push delay ${(lag / 1000).toFixed(1)} s measured):`);
  log(`${'min'.padStart(3)} | ${'with feed: worst'.padStart(16)} ${'mean'.padStart(5)} ${'trials'.padStart(6)} ${'probes'.padStart(6)} ${'attempts'.padStart(8)} | ${'without: worst'.padStart(14)} ${'mean'.padStart(5)} ${'trials'.padStart(6)} ${'attempts'.padStart(8)} | no later`);
  let later = 0;
  for (let m = 0; m < Math.max(a.length, b.length); m++) {
    const x = a[m]!;
    const y = b[m]!;
    const ok = x.worstS <= y.worstS && x.meanS <= y.meanS;
    if (!ok) later++;
    log(`${String(m).padStart(3)} | ${x.worstS.toFixed(1).padStart(16)} ${x.meanS.toFixed(1).padStart(5)} ${String(x.trials).padStart(6)} ${String(x.probes).padStart(6)} ${String(x.attempts).padStart(8)} | ${y.worstS.toFixed(1).padStart(14)} ${y.meanS.toFixed(1).padStart(5)} ${String(y.trials).padStart(6)} ${String(y.attempts).padStart(8)} | ${ok ? 'yes' : 'NO'}`);
  }
  const row = (name: string, f: (r: FailoverFigures) => unknown) => log(`${name.padEnd(58)} ${[on, off].map((r) => String(f(r)).padStart(12)).join(' ')}`);
  row('at the real end:', (r) => (r.feed ? 'with feed' : 'without'));
  row('user-visible failed calls', (r) => r.failedCalls);
  row('primary attempts during the outage (fleet-wide)', (r) => r.primaryAttemptsInOutage);
  row('probes ok from every location after recovery, s', (r) => r.probesOkAfterRecoveryS ?? 'none');
  row('from the provider back to most traffic on the primary, s', (r) => {
    const back = r.backAfterProbesS;
    return back === null || r.probesOkAfterRecoveryS === null ? 'never' : (back + r.probesOkAfterRecoveryS).toFixed(1);
  });
  for (const r of [on, off]) {
    log(`timeline ${r.feed ? 'with' : 'without'} the feed (t0: outage starts, t1: provider back):`);
    for (const line of r.timeline.filter((l) => !l.startsWith('probes:') && !l.startsWith('calls over') && !l.startsWith('event-loop') && !l.startsWith('primary attempts'))) log(`  ${line}`);
  }
  log(`target: with the feed no later than without in every minute (worst and mean): ${later === 0 ? 'met' : `missed in ${later} of ${a.length} minutes`}`);
}
