import type { BreakerKey } from '@breakerbox/protocol';
import { classList, list, num, pct } from './text.ts';
import { CLIENT_CLASSES, PROVIDER_CLASSES } from '@breakerbox/protocol';
import type { VerdictThresholds } from './figures.ts';
import { powerText } from './alternative.ts';
import { keyName } from './key-join.ts';
import { siblingText } from './sibling-probes.ts';
import { leadSentence, servicesSentence } from './service-lead-text.ts';
import { pText, splitText } from './location-split.ts';
import type { LocationHealth } from './prober-health.ts';
import { failureMix, probeSide, recoveredLocations, type Decision } from './rules.ts';
import type { Alternative, ClientFigures, ProbeFigures } from './types.ts';
import { answerSentences, validationLeads } from './wrong-answers.ts';
import { inconclusiveWithoutFailures, latencyVerdictText, noFailure, shapeHintSentence, slowHintSentence } from './latency-evidence.ts';

export { list, num, pct } from './text.ts';

/** "12:04:05 UTC": when, in a page or the evidence. */
export const clockTime = (ms: number): string => `${new Date(ms).toISOString().slice(11, 19)} UTC`;

/** What each suspicion trigger saw (server/suspicion/detect.ts), for the evidence. */
const SUSPICION_TEXT: Record<string, string> = {
  breaker_open: 'a breaker open',
  provider_errors: 'provider-side errors in consecutive windows',
  instances_failing: 'provider-side errors on several instances at once',
};

const plural = (n: number, word: string) => `${num(n)} ${word}${n === 1 ? '' : 's'}`;


/** Sentences about the client side, with the figures the verdict used. */
function clientSentences(c: ClientFigures, t: VerdictThresholds, stateText: string | null, failingSince?: EvidenceContext['failingSince']): string[] {
  const out: string[] = [];
  const where = `on ${plural(c.instances, 'instance')}${c.services > 1 ? ` of ${plural(c.services, 'service')}` : ''}`;
  if (c.calls === 0) out.push(`clients: no calls in the window${c.instances ? ` (${plural(c.instances, 'instance')} reporting)` : ''}`);
  else if (c.failed === 0) out.push(`clients: ${plural(c.calls, 'call')} ${where}, none failed`);
  else {
    const parts: string[] = [];
    const provider = classList(c.errors, PROVIDER_CLASSES);
    const client = classList(c.errors, CLIENT_CLASSES);
    if (provider) parts.push(`provider-side ${pct(c.provider_error_share)}: ${provider}`);
    if (client) parts.push(`client-fault ${pct(c.client_error_share)}: ${client}`);
    const unclassified = c.errors.unclassified ?? 0;
    if (unclassified > 0) parts.push(`unclassified (an error type no rule places, docs/otlp.md): ${num(unclassified)}`);
    out.push(`clients: ${pct(c.error_share)} of ${plural(c.calls, 'call')} failed ${where} (${parts.join('; ')})`);
  }
  if (c.calls > 0 && c.calls < t.min_calls) out.push(`clients: only ${plural(c.calls, 'call')}, fewer than the ${num(t.min_calls)} needed to judge`);
  if (c.slow > 0) out.push(`clients: ${pct(c.slow_share)} of calls slow (${num(c.slow)} over the latency ceiling), p95 ${c.latency_ms.p95 ?? 'n/a'} ms`);
  if (c.rejected > 0) {
    out.push(`clients: ${plural(c.rejected, 'bulkhead rejection')} (${pct(c.rejection_share)} of attempts), p95 latency ${c.latency_ms.p95 ?? 'n/a'} ms`);
  }
  if ((c.open_share ?? 0) > 0 || c.opens > 0) {
    out.push(
      `clients: breaker open ${pct(c.open_share)} of instance-time, ${plural(c.opens, 'open')} (${c.opens_per_hour}/h)${stateText ? `; now ${stateText}` : ''}`,
    );
  }
  if ((c.retry_ratio ?? 0) >= Math.min(0.1, t.retry_storm_ratio)) {
    out.push(`clients: ${plural(c.retries, 'retry')} over ${plural(c.calls, 'call')} (retry ratio ${c.retry_ratio})`.replace('retrys', 'retries'));
  }
  if (c.fallback.failed > 0) out.push(`clients: ${num(c.fallback.failed)} of ${num(c.fallback.invoked)} fallback invocations failed`);
  if (c.degraded) {
    const why: string[] = [];
    if ((c.open_share ?? 0) > t.degraded_open_share) why.push(`open share ${pct(c.open_share)} > ${pct(t.degraded_open_share)}`);
    if (c.calls >= t.min_calls) {
      if ((c.error_share ?? 0) >= t.degraded_error_share) why.push(`error share ${pct(c.error_share)} ≥ ${pct(t.degraded_error_share)}`);
      if ((c.slow_share ?? 0) >= t.degraded_slow_share) why.push(`slow share ${pct(c.slow_share)} ≥ ${pct(t.degraded_slow_share)}`);
      if ((c.rejection_share ?? 0) >= t.degraded_rejection_share) {
        why.push(`rejection share ${pct(c.rejection_share)} ≥ ${pct(t.degraded_rejection_share)}`);
      }
    }
    if (failingSince) why.push(`failing since ${clockTime(failingSince.startedAt)} (${SUSPICION_TEXT[failingSince.reason] ?? failingSince.reason}), confirmed by the probes asked for then`);
    out.push(`clients degraded: ${why.join(', ')}`);
  }
  return out;
}

/** Sentences about the probes, grouped by location status. */
function probeSentences(probes: Record<string, ProbeFigures>, t: VerdictThresholds): string[] {
  const side = probeSide(probes);
  const group = (locations: string[]) => {
    const n = locations.reduce((a, l) => a + probes[l]!.recent.probes, 0);
    const ok = locations.reduce((a, l) => a + probes[l]!.recent.probes - probes[l]!.recent.failed, 0);
    // A wrong answer is no transport failure (docs/alerts.md, "Wrong answers"): say so rather than "ok".
    const wrong = locations.reduce((a, l) => a + probes[l]!.wrong_answer, 0);
    if (wrong > 0) {
      const all = locations.reduce((a, l) => a + probes[l]!.probes, 0);
      return `${num(ok)} of ${num(n)} recent without a transport failure from ${list(locations)}, ${num(wrong)} of the window's ${num(all)} answered wrongly`;
    }
    return `${num(ok)} of ${num(n)} recent ok from ${list(locations)}`;
  };
  const out: string[] = [];
  if (Object.keys(probes).length === 0) return ['probes: none in the window'];
  const parts: string[] = [];
  if (side.failing.length) parts.push(group(side.failing));
  if (side.ok.length) parts.push(group(side.ok));
  if (parts.length) out.push(`probes: ${parts.join('; ')}`);
  for (const l of recoveredLocations(probes, t)) {
    const f = probes[l]!;
    out.push(`probes from ${l} failed ${num(f.error - f.misconfigured + f.slow)} of ${num(f.probes)} in the window but the most recent are ok: the outage is ending`);
  }
  for (const l of side.misconfigured) {
    const f = probes[l]!;
    out.push(`probes from ${l} look misconfigured: ${num(f.recent.failed)} of ${num(f.recent.probes)} recent probes failed, ${num(f.misconfigured)} in the window with bad_request/auth`);
  }
  for (const l of side.insufficient) {
    out.push(`probes: only ${num(probes[l]!.recent.probes)} recent from ${l} (${num(t.min_probes)} needed)`);
  }
  return out;
}

/** The sentence that explains the hint. */
function hintSentence(d: Decision, c: ClientFigures, probes: Record<string, ProbeFigures>, t: VerdictThresholds): string | null {
  const mix = failureMix(c);
  const side = probeSide(usableOnly(probes));
  switch (d.hint) {
    case 'client_errors':
      if (validationLeads(c)) {
        return `hint client_errors: ${pct(mix.ours)} of failures are our own classes (≥ ${pct(t.hint_dominant_share)}), most of them invalid_output (${num(c.errors.invalid_output ?? 0)}: answers that failed the service's own validation) — a prompt, schema or validator change of ours`;
      }
      return `hint client_errors: ${pct(Math.max(mix.clientFault, mix.ours))} of failures are our own classes (bad_request/auth/context_length/policy${mix.clientFault < t.hint_dominant_share ? '/quota/truncated' : ''}; ≥ ${pct(t.hint_dominant_share)})`;
    case 'quota':
      return `hint quota: ${pct(mix.quota)} of failures are quota/rate_limit while the probes are served`;
    case 'truncation':
      return `hint truncation: ${pct(mix.truncated)} of failures (${num(c.errors.truncated)} of ${plural(c.calls, 'call')}) are answers cut by their token limit (finish_reason length/max_tokens) — raise max_tokens or shorten the output asked for`;
    case 'retry_storm':
      return `hint retry_storm: retry ratio ${c.retry_ratio} ≥ ${t.retry_storm_ratio}`;
    case 'capacity':
      return `hint capacity: ${pct(c.rejection_share)} of attempts rejected by the bulkhead while only ${pct(c.slow_share)} of calls were slow`;
    case 'local':
      return `hint local: degraded on ${list(d.local!.degraded)} only; healthy on ${list(d.local!.healthy)}`;
    case 'regional':
      return `hint regional: probes failing from ${list(side.failing)}, fine from ${list(side.ok)}${d.split ? `, beyond chance (${pText(d.split.p)} ≤ ${d.split.alpha})` : ''}`;
    case 'regional_unconfirmed':
      return `hint regional_unconfirmed: probes failing from ${list(side.failing)}, fine from ${list(side.ok)}, but too few (${num(d.split!.failing.probes)} and ${num(d.split!.ok.probes)} recent) to tell a region from chance — not a reason to move region yet; the next probes decide`;
    case 'intermittent':
      if (d.split) {
        return `hint intermittent: the probes failed ${num(d.intermittent!.failed)} of ${num(d.intermittent!.probes)} recent from ${list([...side.failing, ...side.ok])} (${pct(d.intermittent!.failed / d.intermittent!.probes)}), no location beyond chance more than another (${pText(d.split.p)} > ${d.split.alpha}): the provider fails at random everywhere, not in one region — another region will not help; fail over to another provider or wait, not our code`;
      }
      return `hint intermittent: the probes failed ${num(d.intermittent!.failed)} of ${num(d.intermittent!.probes)} in the window (${pct(d.intermittent!.failed / d.intermittent!.probes)} ≥ ${pct(t.probe_intermittent_share)}) while their latest are ok: the provider fails in bursts — fail over, not our code`;
    case 'slow':
      return slowHintSentence(d, c);
    case 'probes_inconclusive':
      if (noFailure(c)) return inconclusiveWithoutFailures(d, c, t.slow_probe_baseline_min_probes);
      return `hint probes_inconclusive: provider-side errors the probes did not see, and too few probes to rule the provider out${d.power ? ` (${powerText(d)} > ${pct(t.probe_refute_max_chance)})` : ''} — likely intermittent; fail over, tell the provider, not our code`;
    case 'traffic_shape':
      if (d.latency) return shapeHintSentence(d, c);
      return `hint traffic_shape: the probes would have seen a provider failing at this rate (${powerText(d)} ≤ ${pct(t.probe_refute_max_chance)}) but were served: the provider fails requests shaped like ours (size, streaming, parameters), on every service and instance — tell the provider, not our code`;
    case 'probe_only':
      return `hint probe_only: no client traffic seen in the window — the verdict rests on the probes alone (a fallback or a model not in use yet)`;
    case 'probes_set_aside':
      return 'hint probes_set_aside: the only probes of this key come from unhealthy prober locations, set aside — the probe side is unknown';
    case 'probes_pending': {
      const p = d.pending!;
      if (p.asked_at === null) {
        return `hint probes_pending: a breaker has been open since ${clockTime(p.since)}, and no location has probed the key enough since to judge it — the verdict waits until ${clockTime(p.until)} for the probes the trigger asks for instead of resting on probes older than the degradation (they alone would say ${p.held})`;
      }
      const waiting = p.asked.filter((l) => !p.answered.includes(l));
      return `hint probes_pending: the clients began to degrade at ${clockTime(p.since)}; probes asked of ${list(p.asked)} at ${clockTime(p.asked_at)}, ${waiting.length ? `not yet answered by ${list(waiting)}` : 'answered'} — the verdict waits for them until ${clockTime(p.until)} instead of resting on probes older than the degradation (they alone would say ${p.held})`;
    }
    case 'sibling_probes':
      return `hint sibling_probes: no usable probe of this key, so the provider's other keys speak for it — ${siblingText(d.siblings!)}; the clients fail with provider-side classes (${pct(mix.provider)} of failures)`;
    case 'probes_stale': {
      if (d.silent?.length) {
        return `hint probes_stale: no probe in the window, but ${list(d.silent.map((s) => `${s.location} probed this key until ${clockTime(s.last_ts).replace(/:00 UTC$/, ' UTC')}`))} — the prober stopped (it died or hit its cost cap); the verdict waits for it to report again`;
      }
      const p = d.pending!;
      return `hint probes_stale: no probe since the clients began to degrade at ${clockTime(p.since)}${p.asked_at === null ? ' (the probers were not asked)' : p.asked.length ? ` (asked ${list(p.asked)} at ${clockTime(p.asked_at)}, no answer)` : ' (every location\'s on-demand budget was spent)'} — the older probes do not speak for now; look at the client figures`;
    }
    case 'probe_misconfigured':
      return `hint probe_misconfigured: probes from ${list(side.misconfigured)} fail with bad_request/auth — fix the probe, it says nothing about the provider`;
    case 'no_probes':
      return 'hint no_probes: no location has enough recent probes for this key — configure the prober to cover it';
    case 'model_retired': {
      const r = d.retired!;
      const move = `not a bug in the request: move to ${r.successor ?? 'a successor'}`;
      if (r.signal !== undefined) {
        const what = r.shutdown ? `the model retired on ${r.shutdown} by the provider's Sunset header` : "the provider signals the model's deprecation";
        return `hint model_retired: ${what} (${r.signal}; no calendar entry) and ${pct(r.bad_request_share)} of failures are bad_request (404 model_not_found) — ${move}`;
      }
      return `hint model_retired: the model retired on ${r.shutdown} (retirement calendar${r.link ? `, ${r.link}` : ''}) and ${pct(r.bad_request_share)} of failures since are bad_request (404 model_not_found) — ${move}`;
    }
    case 'wrong_answers':
      return `hint wrong_answers: the provider answers 200 with wrong or malformed answers (new weights, a model swapped behind its name): its answers are judged, not its transport — fail over to another model or provider and tell the provider; not our code`;
    case 'low_volume':
      return `hint low_volume: ${plural(c.calls, 'call')} is below the ${num(t.min_calls)} needed to judge the clients`;
    default:
      return null;
  }
}

/** Why a verdict of our own classes needed no probe. */
function ownClassSentence(d: Decision, c: ClientFigures): string | null {
  if (!d.ownClasses) return null;
  const why = `${pct(d.ownClasses.share)} of failures are our own classes (${classList(c.errors, CLIENT_CLASSES)}), which a provider answers the same whatever its health`;
  if (d.ownClasses.side === 'missing') return `probes not needed: ${why} — no location probes this key, and none has to`;
  if (d.ownClasses.side === 'misconfigured') return `probes not needed: ${why} — the probes fail with bad_request/auth and say nothing either way`;
  return `probes not needed: ${why}`;
}

/** With a key's own probes healthy, missing or stale, its siblings' probes as context. */
function siblingSentence(d: Decision): string | null {
  if (!d.siblings || d.hint === 'sibling_probes') return null;
  return d.siblings.side === 'healthy'
    ? `sibling probes: ${siblingText(d.siblings)} — health is a property of the model, not the host: they neither refute a failure of this one nor make it ours`
    : `sibling probes: ${siblingText(d.siblings)}, but the clients' failures are not provider-side enough to lean on them`;
}

const usableOnly = (probes: Record<string, ProbeFigures>) => Object.fromEntries(Object.entries(probes).filter(([, f]) => !f.set_aside));

const VERDICT_TEXT: Record<Decision['verdict'], string> = {
  provider_outage: 'clients degraded and probes failing: the provider is down — wait it out, fail over',
  provider_suspected: 'clients fail with provider-side errors the probes did not confirm, and nothing points at our side — fail over, tell the provider',
  self_inflicted: 'clients degraded while probes are fine: look at our side',
  provider_degraded: 'probes failing while clients are fine: early warning, not felt yet',
  healthy: 'clients and probes healthy',
  insufficient_data: 'not enough data to decide',
};

/** The verdict sentence; the hint changes what the verdict rests on. */
function verdictText(d: Decision, c: ClientFigures): string {
  // Slowness and shedding read as such: no sentence speaks of errors that did not happen.
  const latency = latencyVerdictText(d, c);
  if (latency) return latency;
  if (d.hint === 'probe_only') {
    return d.verdict === 'provider_outage'
      ? 'no client traffic and every probe location failing: this key is down before anyone needs it (a fallback?)'
      : d.verdict === 'provider_degraded'
        ? 'no client traffic and probes failing from some locations'
        : 'no client traffic; the probes are served';
  }
  if (d.hint === 'low_volume' && d.verdict !== 'insufficient_data') {
    return d.verdict === 'provider_outage'
      ? 'too few calls to judge the clients, and every probe location failing: the provider is down'
      : 'too few calls to judge the clients, and probes failing from some locations';
  }
  if (d.hint === 'wrong_answers') {
    return c.calls === 0
      ? 'no client traffic, and the answer canaries answer wrongly: the provider serves wrong answers (200s) before anyone needs the key'
      : (c.errors.invalid_output ?? 0) > 0
        ? "the answer canaries answer wrongly and the clients' answers fail their validation: the provider serves wrong answers (200s)"
        : 'the answer canaries answer wrongly while no call failed: the provider serves wrong answers (200s) that the clients, validating nothing, take as right';
  }
  if (d.hint === 'intermittent' && d.verdict === 'provider_degraded') return 'probes failing at random from every location while clients are fine: early warning, not felt yet';
  if (d.hint === 'intermittent') return 'clients degraded and the probes caught the provider failing too, in bursts: not our code — fail over';
  if (d.hint === 'regional' && d.verdict === 'provider_outage') return 'clients degraded and probes failing from some locations only, beyond chance: the provider is down in one region — fail over to another region or provider';
  if (d.recovered?.length) return 'clients degraded while the probes failed for most of the window: the provider was down and is recovering';
  if (d.hint === 'sibling_probes') {
    return d.verdict === 'provider_outage'
      ? "clients degraded and the provider's other keys failing from every location: the provider is down — wait it out, fail over"
      : "clients degraded and the provider's other keys failing from some locations: fail over, tell the provider";
  }
  if (d.ownClasses && d.ownClasses.side !== 'healthy' && d.ownClasses.side !== 'partial') return 'clients fail with our own error classes: look at our side';
  if (d.hint === 'probes_stale' && d.silent?.length) return 'no probe in the window: the probers that covered this key stopped';
  return VERDICT_TEXT[d.verdict];
}

/** What the evidence says besides the figures: joins, near matches, prober health. */
export interface EvidenceContext {
  stateText: string | null;
  key: BreakerKey;
  joined: BreakerKey[];
  near: BreakerKey[];
  health: Map<string, LocationHealth>;
  aliases: Record<string, string>;
  /** The suspicion whose probes showed the clients failing now, before the window's figures do (`failingNow`). */
  failingSince?: { startedAt: number; reason: string } | undefined;
}

/** Sentences about how the key's two sides were joined, and which locations were set aside. */
function joinSentences(probes: Record<string, ProbeFigures>, x: EvidenceContext): string[] {
  const out: string[] = [];
  for (const k of x.joined) {
    const via = x.aliases[x.key.provider] ?? x.aliases[k.provider];
    out.push(`probes joined from ${keyName(k)} through the provider alias ${x.aliases[x.key.provider] ? `${x.key.provider} → ${via}` : `${k.provider} → ${via}`}`);
  }
  if (x.near.length > 0) {
    const names = x.near.map(keyName);
    const other = x.near[0]!;
    out.push(
      `join: no probes for this key, but the same model is probed as ${list(names)} — if it is the same dependency, add ` +
        `"provider_aliases": {"${x.key.provider}": "${other.provider}"} to the collector's verdicts config, or set the SDK's \`provider\`${other.region !== x.key.region ? '/`region`' : ''} option to match the prober`,
    );
  }
  for (const [location, f] of Object.entries(probes)) {
    if (f.set_aside) out.push(`probes from ${location} set aside: ${x.health.get(location)?.reason ?? 'the location is unhealthy'}`);
  }
  return out;
}

/** Every sentence behind a verdict, in reading order: verdict, clients, probes, joins, hint, alternative. */
export function evidence(d: Decision, c: ClientFigures, probes: Record<string, ProbeFigures>, t: VerdictThresholds, x: EvidenceContext, alternative: Alternative): string[] {
  // The worst service leads (service-lead.ts): its figures are what the verdict and hint rest on; the key's follow.
  const s = d.service;
  const own = s?.led ? s.lead.figures : c;
  const hint = hintSentence(d, own, probes, t);
  const power = d.power && d.hint !== 'probes_inconclusive' && d.hint !== 'traffic_shape' ? `probe power: ${powerText(d)}${d.power.refutes ? '' : ' — too weak to rule the provider out'}` : null;
  const lead = s?.led
    ? [leadSentence(s, d.verdict, verdictText(d, own)), ...clientSentences(own, t, null).filter((l) => l.startsWith('clients degraded:')).map((l) => l.replace(/^clients/, s.lead.name))]
    : [`${d.verdict}: ${verdictText(d, c)}`, ...(s ? [servicesSentence(s)] : [])];
  return [
    ...lead,
    ...clientSentences(c, t, x.stateText, x.failingSince),
    ...(Object.keys(probes).length > 0 && Object.keys(usableOnly(probes)).length === 0 ? ['probes: none usable in the window'] : probeSentences(usableOnly(probes), t)),
    ...(d.split ? [splitText(d.split)] : []),
    ...answerSentences(s?.led ? s.lead.decision : d, t),
    ...joinSentences(probes, x),
    // Answers judged (wrong-answers.ts) say what the probes show of them; "a provider answers the same whatever its health" is not true of invalid_output.
    ...[d.answers || s?.lead.decision.answers ? null : ownClassSentence(d, own), siblingSentence(d)].filter((x): x is string => x !== null),
    ...(power ? [power] : []),
    ...(hint ? [hint] : []),
    `why not ${alternative.verdict}: ${alternative.why}`,
  ];
}
