import { clockTime, list, pct } from '../verdicts/evidence.ts';
import type { KeyAnalysis } from '../verdicts/analyse.ts';
import { probeSide } from '../verdicts/rules.ts';
import { verdictLabel } from '../verdicts/service-lead-text.ts';
import { slowLocations } from '../verdicts/slow-probes.ts';

/** "15 min", "1 h", "90 s". */
export function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

export { pct };

const locations = (n: number) => `${n} location${n === 1 ? '' : 's'}`;

/**
 * The verdict half of an alert summary: what the probes say and what that makes it,
 * e.g. "probes fine from 2 locations: likely self-inflicted (retry_storm)". Every list it
 * names is non-empty: a phrase is chosen by what the decision rests on.
 */
export function verdictPhrase(a: KeyAnalysis | undefined): string {
  if (!a) return 'no recent data for a verdict';
  const s = a.decision.service;
  // The key took its worst service's verdict: say whose it is (service-lead.ts).
  if (s?.led) return `${keyPhrase(a)} on ${s.lead.name}${s.also.length ? ` (also ${s.also.map((h) => `${h.name}: ${verdictLabel(h)}`).join(', ')})` : ''}`;
  return keyPhrase(a);
}

/** The phrase of the key's own decision. */
function keyPhrase(a: KeyAnalysis): string {
  const usable = Object.fromEntries(Object.entries(a.probes).filter(([, f]) => !f.set_aside));
  const side = probeSide(usable);
  const d = a.decision;
  const hint = d.hint ? ` (${d.hint})` : '';
  if (d.hint === 'slow' && d.latency) {
    const slow = slowLocations(d.latency);
    const usual = d.latency.locations.length - slow.length;
    return `probes far slower than their baseline from ${list(slow)}${usual ? `, at their usual latency from ${locations(usual)}` : ''}, clients slow or shedding: ${d.verdict === 'provider_outage' ? 'likely provider outage' : 'provider degraded'} (slow)`;
  }
  if (d.verdict === 'provider_suspected' && a.clients.failed === 0) {
    return d.latency && d.hint === 'traffic_shape'
      ? `clients slow or shedding, probes at their usual latency from ${locations(d.latency.locations.length)}: our traffic shape or network, or a provider slow on requests like ours${hint}`
      : `clients slow or shedding with no failed call, probes unable to tell: provider suspected${hint}`;
  }
  switch (d.verdict) {
    case 'provider_outage':
      if (d.hint === 'probe_only' || d.hint === 'low_volume') {
        return `${d.hint === 'probe_only' ? 'no client traffic' : 'few calls'}, probes failing from ${locations(side.failing.length)}: provider outage${hint}`;
      }
      if (d.hint === 'intermittent' && d.intermittent) {
        return `probes caught the provider failing ${d.intermittent.failed} of ${d.intermittent.probes} times: likely provider outage, intermittent`;
      }
      if (d.hint === 'sibling_probes' && d.siblings) {
        return `no probe of its own; the provider's other keys fail from ${list(d.siblings.failing)}: likely provider outage (sibling_probes)`;
      }
      if (d.recovered?.length) return `probes failed for most of the window from ${list(d.recovered)} and are recovering: likely provider outage, ending`;
      return side.ok.length
        ? `probes failing from ${list(side.failing)}, fine from ${list(side.ok)}: likely provider outage${hint}`
        : `probes failing from ${locations(side.failing.length)}: likely provider outage${hint}`;
    case 'provider_suspected':
      if (d.hint === 'sibling_probes' && d.siblings) {
        return `no probe of its own; the provider's other keys fail from ${list(d.siblings.failing)}, fine from ${list(d.siblings.ok)}: provider suspected (sibling_probes)`;
      }
      return `provider-side errors the probes did not confirm, nothing on our side: provider suspected${hint}`;
    case 'self_inflicted':
      if (d.ownClasses && side.ok.length === 0) return `failures of our own classes, no probe needed: self-inflicted${hint}`;
      return `probes fine from ${locations(side.ok.length)}: likely self-inflicted${hint}`;
    case 'provider_degraded':
      if (d.hint === 'wrong_answers' && d.answers) {
        const wrong = d.answers.side.locations.filter((l) => l.wrongly).map((l) => `${l.location} ${l.wrong} of ${l.probes}`);
        return `answer canaries wrong from ${list(wrong)} probes: provider serving wrong answers (wrong_answers)`;
      }
      return side.ok.length
        ? `clients fine, probes failing from ${list(side.failing)}, fine from ${list(side.ok)}: provider degraded${hint}`
        : `clients fine, probes failing from ${list(side.failing)}: provider degraded${hint}`;
    case 'healthy':
      return `clients and probes healthy now${hint}`;
    default: {
      const p = d.pending;
      if (d.hint === 'probes_pending' && p) {
        if (p.asked_at === null) return `breaker open since ${clockTime(p.since)}, after the last probes; probes about to be asked: cause not decided (probes_pending)`;
        const waiting = p.asked.filter((l) => !p.answered.includes(l));
        return `probes asked of ${list(p.asked)} at ${clockTime(p.asked_at)}, ${list(waiting)} not answered yet: cause not decided (probes_pending)`;
      }
      if (d.hint === 'probes_stale' && d.silent?.length) {
        return `no probe in the window; ${list(d.silent.map((x) => `${x.location} last probed at ${clockTime(x.last_ts).replace(/:00 UTC$/, ' UTC')}`))}: cause not decided (probes_stale)`;
      }
      if (d.hint === 'probes_stale' && p) return `no probe since the degradation began at ${clockTime(p.since)}: cause not decided (probes_stale)`;
      return `verdict: insufficient data${hint}`;
    }
  }
}
