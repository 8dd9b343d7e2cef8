import type { VerdictThresholds } from './figures.ts';
import { failureMix, probeSide, windowFailed, type Decision } from './rules.ts';
import { list, pct } from './text.ts';
import { siblingText } from './sibling-probes.ts';
import type { Alternative, ClientFigures, ProbeFigures } from './types.ts';
import { probePaces } from './latency-evidence.ts';
import { slowLocations } from './slow-probes.ts';


/** "18 of 20 recent probes ok from eu-west and us-east". */
function probeCounts(probes: Record<string, ProbeFigures>, locations: string[]): string {
  const n = locations.reduce((a, l) => a + probes[l]!.recent.probes, 0);
  const ok = locations.reduce((a, l) => a + probes[l]!.recent.probes - probes[l]!.recent.failed, 0);
  return `${ok} of ${n} recent probes ok from ${list(locations)}`;
}

/** "0.8^10 = 10.7%": the chance that clean probes all pass while the provider fails at the clients' rate. */
export function powerText(d: Decision): string | null {
  const p = d.power;
  if (!p) return null;
  return `if the provider failed ${pct(p.failure_share)} of requests (the clients' provider-side share), ${p.probes} probes from ${p.location} would all pass with chance ` +
    `${Number((1 - p.failure_share).toFixed(3))}^${p.probes} = ${pct(p.chance)}`;
}

/**
 * The strongest other answer and the figure that ruled it out: for a provider verdict, that
 * it is ours; for ours, that it is the provider; for the rest, the nearest verdict.
 */
export function alternativeOf(d: Decision, c: ClientFigures, probes: Record<string, ProbeFigures>, t: VerdictThresholds): Alternative {
  const side = probeSide(probes);
  const mix = failureMix(c);
  const usable = [...side.failing, ...side.ok];
  // No failed call: no share "of failures" to quote (issue 36).
  const classes = c.failed === 0 ? 'no failed call' : `client-fault ${pct(mix.clientFault)}, quota ${pct(mix.quota)}, truncated ${pct(mix.truncated)} of failures (< ${pct(t.hint_dominant_share)})`;
  const noSelfSignal =
    `${classes}, ` +
    `retry ratio ${c.retry_ratio ?? 0} (< ${t.retry_storm_ratio}), rejections ${pct(c.rejection_share ?? 0)}, ` +
    `degraded on all ${c.services > 1 ? `${c.services} services` : `${c.instances} instance${c.instances === 1 ? '' : 's'}`}`;
  if (d.hint === 'slow' && d.latency) {
    const slow = slowLocations(d.latency);
    return { verdict: 'self_inflicted', why: `the probes, which share none of our code, are slow too: ${probePaces(d.latency, slow)}; ${noSelfSignal}` };
  }
  if (d.hint === 'wrong_answers' && d.answers) {
    const invalid = d.answers.invalid.reduce((n, v) => n + v.count, 0);
    if (invalid === 0) {
      return { verdict: 'healthy', why: `${c.calls > 0 ? 'no call failed' : 'no client traffic'}, but the canaries answer wrongly from ${list(d.answers.side.wrong)}: the answers arrive and are wrong` };
    }
    return {
      verdict: 'self_inflicted',
      why: `the canaries, our own fixed requests that no prompt or schema change of a service touches, answer wrongly from ${list(d.answers.side.wrong)}${invalid > 0 ? `, and ${invalid} calls failed validation on ${list(d.answers.invalid.map((v) => v.name))} alike` : ''}`,
    };
  }
  switch (d.verdict) {
    case 'provider_outage':
      if (d.hint === 'sibling_probes' && d.siblings) {
        return { verdict: 'self_inflicted', why: `the probes of the provider's other keys, which share none of our code, fail too (${siblingText(d.siblings)}); no class of ours dominates (${noSelfSignal})` };
      }
      if (d.hint === 'probe_only' || d.hint === 'low_volume') {
        const clients = d.hint === 'probe_only' ? 'no client traffic' : `only ${c.calls} calls (fewer than ${t.min_calls})`;
        return { verdict: 'insufficient_data', why: `${clients}, but ${probeCounts(probes, usable)} — the probes alone are enough to call it` };
      }
      if (d.hint === 'intermittent' && d.intermittent) {
        return {
          verdict: 'self_inflicted',
          why: `the probes, which share none of our code, failed ${d.intermittent.failed} of ${d.intermittent.probes} ${d.split ? `recent, from every location alike (${list(usable)})` : 'in the window'} (${pct(d.intermittent.failed / d.intermittent.probes)}); no class of ours dominates (${noSelfSignal})`,
        };
      }
      if (d.recovered?.length) {
        const failed = d.recovered.reduce((a, l) => a + windowFailed(probes[l]!), 0);
        const n = d.recovered.reduce((a, l) => a + probes[l]!.probes, 0);
        return { verdict: 'self_inflicted', why: `the probes failed ${failed} of ${n} in the window from ${list(d.recovered)} too; they are only now recovering` };
      }
      return { verdict: 'self_inflicted', why: `the probes, which share none of our code, fail too: ${probeCounts(probes, side.failing)}` };
    case 'provider_suspected':
      if (d.hint === 'sibling_probes' && d.siblings) {
        return { verdict: 'provider_outage', why: `the provider's other keys fail from ${list(d.siblings.failing)} only, served from ${list(d.siblings.ok)}` };
      }
      return { verdict: 'self_inflicted', why: `no self-side signal: ${noSelfSignal}` };
    case 'self_inflicted': {
      if (d.ownClasses && side.ok.length === 0) {
        return { verdict: 'provider_outage', why: `${pct(d.ownClasses.share)} of failures are our own classes and provider-side classes only ${pct(mix.provider)}: no provider fault answers like that, with or without probes` };
      }
      const power = powerText(d);
      if (power) return { verdict: 'provider_outage', why: `${probeCounts(probes, side.ok)}; ${power}` };
      return {
        verdict: 'provider_outage',
        why: `${probeCounts(probes, side.ok)}, and provider-side classes are only ${pct(c.provider_error_share ?? 0)} of calls (${pct(mix.provider)} of failures)`,
      };
    }
    case 'provider_degraded':
      if (d.hint === 'probe_only' || d.hint === 'low_volume') {
        return { verdict: 'insufficient_data', why: `too little client traffic to judge, but ${probeCounts(probes, side.failing)}` };
      }
      return { verdict: 'healthy', why: `${probeCounts(probes, d.split?.kind === 'chance' ? usable : side.failing)}; clients fine (error share ${pct(c.error_share ?? 0)} < ${pct(t.degraded_error_share)})` };
    case 'healthy':
      if (d.hint === 'probe_only') return { verdict: 'insufficient_data', why: `no client traffic, but ${probeCounts(probes, usable)}` };
      return {
        verdict: 'provider_degraded',
        why: `${probeCounts(probes, side.ok)}; clients fine (error share ${pct(c.error_share ?? 0)} < ${pct(t.degraded_error_share)})`,
      };
    default:
      return {
        verdict: 'healthy',
        why:
          d.hint === 'probes_stale' && d.silent?.length
            ? `the last probes, from ${list(d.silent.map((x) => x.location))}, are older than the window: they no longer speak for the key`
            : d.hint === 'probes_pending' || d.hint === 'probes_stale'
            ? `the probes from before the degradation alone would say ${d.pending!.held}, but they are older than it`
            : d.hint === 'low_volume'
            ? `only ${c.calls} calls, fewer than the ${t.min_calls} needed to judge the clients`
            : d.hint === 'probe_misconfigured'
              ? 'every probe location fails with bad_request/auth: the probes say nothing about the provider'
              : 'no usable probes to confirm the provider is fine',
      };
  }
}
