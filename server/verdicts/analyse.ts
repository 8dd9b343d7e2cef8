import type { BreakerKey } from '@breakerbox/protocol';
import { alternativeOf } from './alternative.ts';
import { addInto, newKeySums, type KeySums } from './counters.ts';
import { evidence } from './evidence.ts';
import { citeSamples, citesSamples, type CitingKey } from './sample-evidence.ts';
import { citeServedChanges, type SwapCitingKey } from './served-changes.ts';
import { joinGroups, nearMatches } from './key-join.ts';
import { proberHealthOf, type LocationHealth } from './prober-health.ts';
import type { KeyInfo, KeyScope, ProbeActivity, SourceInfo, Storage } from '../storage/storage.ts';
import { clientFigures, share, type VerdictThresholds } from './figures.ts';
import { probeTable, type ProbeTable } from './probe-table.ts';
import { isOpenState, type InstanceState, type OpenShareReader, type OpenShareResult, type OpenTime } from './open-share.ts';
import { decide, type Decision } from './rules.ts';
import { failsNotFound, retiredHint } from './retired-hint.ts';
import { effectiveCalendar } from '../lifecycle/provider-signals.ts';
import type { RetirementCalendar } from '../lifecycle/calendar.ts';
import { fleetParts, serviceHealth, type ServiceHealth } from './fleet-parts.ts';
import { siblingProbes } from './sibling-probes.ts';
import { leadWithWorstService } from './service-lead.ts';
import { attachLatencyInputs, wantsLatency } from './probe-baseline.ts';
import { silentLocations } from './silent-locations.ts';
import { failingNow, freshenProbes, holdBeforeAsking, holdForProbes, type PendingProbesSource } from './pending-probes.ts';
import type { Alternative, ClientFigures, KeyState, PartHealth, ProbeFigures } from './types.ts';
import type { SiblingProbes } from './sibling-probes.ts';
import { floorMinute, type TimeRange } from './window.ts';
import { invalidByService, judgeAnswers, readAnswerSide, wantsAnswers } from './wrong-answers.ts';
import type { MinuteWindow } from './minute-window.ts';

/** Everything decided about one key over a window. */
export interface KeyAnalysis {
  info: KeyInfo;
  clients: ClientFigures;
  /** Every location that probed the key (set-aside ones flagged), joined keys' probes included. */
  probes: Record<string, ProbeFigures>;
  decision: Decision;
  /** The evidence sentences: built on first read, from the figures and decision above. */
  evidence: string[];
  /** What to use instead: built on first read, like the evidence. */
  alternative: Alternative;
  state: KeyState;
  /** Summed counters per service id. */
  serviceSums: Map<number, KeySums>;
  /** Each service calling the key, judged on its own calls (by name). */
  services: ServiceHealth[];
  /** Open time per source id (only sources with open time or reporting, when any was open). */
  openPerSource: Map<number, OpenTime>;
  /** State at the window's end per source id, for the instances counted. */
  states: Map<number, InstanceState>;
  /** Transitions into open inside the window per source id. */
  opensPerSource: Map<number, number>;
  /** Instances counted for the key. */
  instances: SourceInfo[];
  /** Keys joined into this one through provider aliases. */
  joined: BreakerKey[];
  /** Probed keys of the same model under another name, when this key has no probes. */
  nearMatches: BreakerKey[];
  /** The health of every prober location over the window (the same map for every key). */
  proberHealth: Map<string, LocationHealth>;
}

/** What `analyse` reads through. */
export interface AnalyseDeps {
  /** `samples` absent: the evidence cites no failed call. */
  storage: Pick<Storage, 'telemetry' | 'rollups' | 'events'> & Partial<Pick<Storage, 'samples'>>;
  openShare: OpenShareReader;
  thresholds: VerdictThresholds;
  /** Probe on suspicion: verdicts wait for requested probes (absent: they never wait). */
  pending?: PendingProbesSource;
  /** The retirement calendar (the model_retired hint); absent: no key is judged retired. */
  calendar?: RetirementCalendar;
  /** The latest minutes' rollup rows kept in memory (incremental engine): short windows read them instead of the storage. */
  minutes?: MinuteWindow;
}

/** "open on 2 of 5" and its counts, from each counted instance's state. */
export function keyState(instances: SourceInfo[], states: Map<number, InstanceState>): KeyState {
  let open = 0;
  let halfOpen = 0;
  let known = 0;
  for (const s of instances) {
    const st = states.get(s.id)?.state;
    if (st) known++;
    if (st === 'open' || st === 'forced_open') open++;
    else if (st === 'half_open') halfOpen++;
  }
  const n = instances.length;
  const closed = n - open - halfOpen;
  const summary: KeyState['summary'] = open > 0 ? 'open' : halfOpen > 0 ? 'half_open' : known > 0 ? 'closed' : 'unknown';
  const text =
    n === 0 ? 'no instance reporting' : open > 0 ? `open on ${open} of ${n}` : halfOpen > 0 ? `half-open on ${halfOpen} of ${n}` : known > 0 ? `closed on all ${n}` : `state unknown on ${n}`;
  return { summary, open, half_open: halfOpen, closed, instances: n, text };
}

/** What one pass judged, with what an incremental pass reuses (docs/verdict-engine.md). */
export interface AnalysisPass {
  list: KeyAnalysis[];
  /** Keys whose analysis can change with time alone (open breakers, transitions or suspicions in the window, degraded, waiting or probe-less verdicts). */
  timeDependent: Set<number>;
  probes: ProbeTable;
  /** Prober health as JSON: a pass that reuses `probes` is only valid while this is unchanged. */
  healthJson: string;
}

/** Judge only `only`, reading per key, over a probe table `probes` already read for the same window. */
export interface PassScope {
  only: ReadonlySet<number>;
  /** Absent: read again (from the kept minutes, a sliding window's). */
  probes?: ProbeTable;
}

/**
 * Computes figures, verdict, hint and evidence for every key seen in `range` (or every
 * known key with `all`, or one key with `keyId`) from the rollups and the raw transitions.
 */
export async function analyse(deps: AnalyseDeps, range: TimeRange, options: { keyId?: number; all?: boolean } = {}): Promise<KeyAnalysis[]> {
  return (await analysePass(deps, range, options)).list;
}

/**
 * The client-side reads of a pass: every key in one read each, or (a scope) its keys in one
 * read each too (`key_id = ANY(...)`: a partial pass on PostgreSQL made four round trips per
 * dirty key, issue 38). The kept minutes, when there are any, stand in for the rollup reads.
 */
async function clientReads(deps: AnalyseDeps, range: TimeRange, keyId: number | undefined, only: ReadonlySet<number> | undefined) {
  const { rollups: reader } = deps.storage;
  const first = floorMinute(range.from);
  const kept = keyId === undefined ? await deps.minutes?.read(first, range.to) : null;
  const scope: KeyScope | undefined = only ? [...only] : keyId;
  if (only && only.size === 0) return { byService: new Map(), reporting: new Map(), open: { perKey: new Map(), states: new Map(), opens: new Map(), intervals: new Map() } as OpenShareResult };
  const [byService, reporting] = !kept
    ? await Promise.all([reader.keyServiceSums(first, range.to, scope), reader.keySources(first, range.to, scope)])
    : only ? [pick(kept.byService, only), pick(kept.reporting, only)] : [kept.byService, kept.reporting];
  return { byService, reporting, open: await deps.openShare.compute(range.from, range.to, reporting, scope) };
}

/** The entries of `m` whose key is in `ids`. */
const pick = <V>(m: Map<number, V>, ids: ReadonlySet<number>): Map<number, V> => new Map([...ids].filter((id) => m.has(id)).map((id) => [id, m.get(id)!]));

/** `analyse`, keeping what an incremental pass needs; with `scope`, only the keys in it. */
export async function analysePass(deps: AnalyseDeps, range: TimeRange, options: { keyId?: number; all?: boolean } = {}, scope?: PassScope): Promise<AnalysisPass> {
  const { storage, thresholds: t } = deps;
  const { rollups: reader } = storage;
  const { from, to } = range;
  const first = floorMinute(from);
  const keyId = options.keyId;
  const [keys, sources, { byService, reporting, open }, fallback, keyedFallback] = await Promise.all([
    storage.telemetry.keys(),
    storage.telemetry.sources(),
    clientReads(deps, range, keyId, scope?.only),
    reader.fallbackByService(first, to),
    reader.fallbackByKey(first, to),
  ]);
  // The calendar completed with the providers' Sunset dates, and their signals: one small read a pass.
  const retirements = deps.calendar ? await effectiveCalendar(storage, deps.calendar, keys) : undefined;
  // Which keys' config lists fallbacks matters only for services whose tasks carry no key.
  const withFallbacks = [...fallback].some(([service, f]) => !keyedFallback.has(service) && f.invoked > 0) ? await storage.events.hasFallbacks() : null;

  // Probes of every key: prober health is judged across keys, and aliases join keys.
  const probeFiguresOf = scope?.probes ?? (await probeTable(deps, range));
  const health = await proberHealthOf(probeFiguresOf.all, keys, () => storage.events.probeFailureClasses(Math.max(from, to - t.probe_recent_lookback_s * 1000), to), t);
  const setAside = new Set([...health.values()].filter((h) => h.status === 'unhealthy').map((h) => h.location));
  const groups = joinGroups(keys, t.provider_aliases);
  const hasClients = (id: number) => byService.has(id) || reporting.has(id) || open.perKey.has(id) || open.opens.has(id);
  const probed = new Set(probeFiguresOf.all.keys());
  const nearMatchesOf = nearMatches(keys, probed);
  const suspicions = (await deps.pending?.latestPerKey(from, to)) ?? new Map();
  const usableOf = (other: number) => {
    const all = probeFiguresOf.all.get(other);
    return all && Object.fromEntries(Object.entries(all).filter(([location]) => !setAside.has(location)));
  };
  // Read only when a key has no probe in the window or its services are split.
  let activity: Promise<ProbeActivity[]> | undefined;
  const probeActivity = () => (activity ??= storage.rollups.probeActivity(floorMinute(to - t.stale_probe_lookback_s * 1000), to));
  let serviceNames: Promise<Map<number, string>> | undefined;
  const names = () => (serviceNames ??= storage.telemetry.services());

  const ids = new Set<number>([...byService.keys(), ...probeFiguresOf.all.keys(), ...reporting.keys(), ...open.perKey.keys(), ...open.opens.keys()]);
  if (options.all) for (const id of keys.keys()) ids.add(id);
  if (keyId !== undefined) {
    ids.clear();
    ids.add(keyId);
  }
  if (scope) for (const id of ids) if (!scope.only.has(id)) ids.delete(id);
  const timeDependent = new Set<number>([...open.perKey.keys(), ...open.opens.keys(), ...open.intervals.keys(), ...suspicions.keys()]);
  for (const [id, states] of open.states) if ([...states.values()].some((st) => isOpenState(st.state))) timeDependent.add(id);

  const out: KeyAnalysis[] = [];
  const citing: CitingKey[] = [];
  const swapped: SwapCitingKey[] = [];
  for (const id of ids) {
    const info = keys.get(id);
    if (!info) continue;
    const group = groups.get(id) ?? [id];
    // A probe-only key whose probes are joined into a key with client traffic is shown there.
    if (keyId === undefined && !hasClients(id) && group.some((other) => other !== id && hasClients(other))) continue;
    const services = byService.get(id) ?? new Map<number, KeySums>();
    const total = newKeySums();
    for (const sums of services.values()) addInto(total, sums);

    // Instances: those that reported, plus any whose breaker is open and that sent anything in the window.
    const states = open.states.get(id) ?? new Map<number, InstanceState>();
    const counted = new Set<number>(reporting.get(id)?.keys() ?? []);
    for (const [source, st] of states) {
      if (isOpenState(st.state) && (sources.get(source)?.lastSeen ?? 0) >= from) counted.add(source);
    }
    const instances = [...counted].map((s) => sources.get(s)).filter((s): s is SourceInfo => s !== undefined);
    /** A service's name: from the key's instances, else the service table. */
    const serviceName = async (s: number) => instances.find((x) => x.serviceId === s)?.service ?? (await names()).get(s) ?? String(s);
    const serviceIds = new Set<number>([...services.keys(), ...instances.map((s) => s.serviceId)]);

    const openTime = open.perKey.get(id);
    const openShare = openTime ? share(openTime.openMs, openTime.instanceMs) : instances.length > 0 ? 0 : null;
    // Fallbacks: the chains whose primary is this key when the senders say so (tasks carry
    // their key); else those of the services reporting the key (older senders), unless the
    // key's own config says it has no fallback.
    const fb = { invoked: 0, failed: 0 };
    for (const service of serviceIds) {
      const keyed = keyedFallback.get(service);
      let f = keyed ? keyed.get(id) : fallback.get(service);
      if (!keyed && f && f.invoked > 0 && withFallbacks?.get(id) === false) f = undefined;
      if (f) {
        fb.invoked += f.invoked;
        fb.failed += f.failed;
      }
    }
    const clients = clientFigures(total, { spanMs: to - from, openShare, instances: instances.length, services: serviceIds.size, fallback: fb }, t);

    const joinedIds = group.filter((other) => other !== id && probed.has(other));
    const probes = joinedIds.length > 0 ? probeFiguresOf.merged([id, ...joinedIds]) : { ...(probeFiguresOf.all.get(id) ?? {}) };
    const usable: Record<string, ProbeFigures> = {};
    for (const [location, f] of Object.entries(probes)) {
      if (setAside.has(location)) probes[location] = { ...f, set_aside: true };
      else usable[location] = f;
    }
    const near = Object.keys(probes).length === 0 ? nearMatchesOf(info.key) : [];
    // A degradation the probers were asked about: its probe side is what they saw since it began.
    const asked = suspicions.get(id);
    const fresh = asked && (clients.degraded || to - asked.triggeredAt <= deps.pending!.pendingMaxMs) ? await deps.pending!.probesSince(id, asked.startedAt, to) : null;
    // Failing now, confirmed by the probes asked for, though the window still reads healthy.
    const failingSince = !clients.degraded && failingNow(asked, fresh, usable, to, deps.pending?.pendingMaxMs ?? 0, t) ? asked : undefined;
    if (failingSince) clients.degraded = true;
    const suspicion = clients.degraded ? asked : undefined;
    if (suspicion && fresh) {
      freshenProbes(usable, fresh, t);
      for (const location of Object.keys(usable)) probes[location] = usable[location]!;
    }

    const openPerSource = openTime?.perSource ?? new Map<number, OpenTime>();
    // A key without usable probes of its own, degraded: its provider's other keys are evidence.
    const siblings = clients.degraded && Object.keys(usable).length === 0 ? siblingProbes(id, keys, usableOf, probed, t.provider_aliases, group) : undefined;
    // Slow or shedding clients: each ok location's latency baseline, the declared ceiling and the `slow_calls` opens (issue 36).
    const slowOpens = wantsLatency(clients, usable) ? await attachLatencyInputs(storage, id, [id, ...joinedIds], range, usable, probes, t) : 0;
    const fleetDecided = await decideWithFleet(clients, usable, () => fleetParts(deps, id, range, services, instances, openPerSource), t, siblings, slowOpens);
    // Answers (issue 39): the canaries over their own lookback, read only for keys with a wrong answer in the window or invalid_output calls.
    const answerSide = wantsAnswers(clients, usable) ? await readAnswerSide(storage.events, [id, ...joinedIds], to, setAside, t) : null;
    if (answerSide) timeDependent.add(id); // the lookback slides with `to`
    const invalid = answerSide ? await invalidByService(services, serviceName) : [];
    const decided = judgeAnswers(fleetDecided, clients, answerSide, invalid);
    const named: Decision = await nameMissing(decided, probes, async () => silentLocations(await probeActivity(), id));

    const judged = await retiredHint(named, clients, info.key, retirements, to, t, () => failsNotFound(storage.samples, id, from, to));
    const decision = suspicion && fresh
      ? holdForProbes(judged, suspicion, fresh, Object.keys(usable), to, deps.pending!.pendingMaxMs, t)
      : deps.pending && clients.degraded ? await holdOpen(deps.pending, id, judged, states, Object.keys(usable), to, t) : judged;
    // Each service on its own calls; while the key's verdict is held for probes, theirs is too.
    const held = decision !== judged && decision.verdict === 'insufficient_data' ? decision : undefined;
    const perService: ServiceHealth[] =
      services.size > 1
        ? serviceHealth(await names(), services, range, instances, openPerSource, usable, t, siblings, held)
        : await Promise.all([...services.keys()].map(async (s) => ({
            // The service's name from its instances, or (none counted) from the names table.
            name: await serviceName(s), calls: clients.calls, failed: clients.failed,
            error_share: clients.error_share, degraded: clients.degraded, verdict: clients.degraded ? decision.verdict : null, hint: clients.degraded ? decision.hint : null,
          })));
    // Each service's own verdict judges the answers too: a service failing invalid_output while the canaries are wrong is the provider's, not its own.
    if (answerSide && services.size > 1) {
      for (const s of perService) {
        if (!s.decision || !s.figures) continue;
        const own = judgeAnswers(s.decision, s.figures, answerSide, invalid.filter((v) => v.name === s.name));
        if (own !== s.decision) Object.assign(s, { decision: own, verdict: own.verdict, hint: own.hint });
      }
    }
    // The key says what its worst service says: a service hidden by healthy callers leads.
    const keyDecision = leadWithWorstService(decision, perService);
    const state = keyState(instances, states);
    const joined = joinedIds.map((other) => keys.get(other)!.key);
    const context = { stateText: state.open + state.half_open > 0 ? state.text : null, joined, near, health, aliases: t.provider_aliases, key: info.key, failingSince };
    const figures = keyDecision.service?.led ? keyDecision.service.lead.figures : clients;
    // A retirement date on the calendar: the model_retired hint turns on when `to` passes it.
    if (clients.degraded || keyDecision.service || decision.verdict === 'insufficient_data' || decision !== named || retirements?.calendar.of(info.key.provider, info.key.model)) timeDependent.add(id);
    const analysis = {
      info,
      clients,
      probes,
      decision: keyDecision,
      state,
      serviceSums: services,
      services: perService,
      openPerSource,
      states,
      opensPerSource: open.opens.get(id) ?? new Map(),
      instances,
      joined,
      nearMatches: near,
      proberHealth: health,
    } as KeyAnalysis;
    // The text is built when read (a page, /api/key, the rows of /api/verdicts asked for), from the inputs the verdict used.
    lazyField(analysis, 'alternative', () => alternativeOf(keyDecision, figures, usable, t));
    lazyField(analysis, 'evidence', () => evidence(keyDecision, clients, probes, t, context, analysis.alternative));
    if (citesSamples(keyDecision, clients)) citing.push({ keyId: id, evidence: analysis.evidence });
    // A degraded verdict names a model swapped behind the key's name shortly before (issue 39).
    if (keyDecision.verdict !== 'healthy' && citesSamples(keyDecision, clients)) swapped.push({ keyId: id, evidence: analysis.evidence });
    out.push(analysis);
  }
  // After the loop: one bounded read for just the keys that cite samples.
  await citeSamples(storage.samples, citing, range);
  for (const c of citing) timeDependent.add(c.keyId);
  // The look-back slides with `to`: a key that names a change is judged again.
  for (const id of await citeServedChanges(storage, swapped, to, t.served_change_lookback_s * 1000)) timeDependent.add(id);
  const healthJson = JSON.stringify([...health].sort(([a], [b]) => a.localeCompare(b)));
  return { list: out, timeDependent, probes: probeFiguresOf, healthJson };
}

/**
 * Defines `o[name]` as computed on first read by `make` (then a plain value): the pass decides
 * every key's verdict, and only the keys shown or sent have their text built. Enumerable, so
 * spreads, JSON and structured clones read it like any field.
 */
function lazyField<T extends object, K extends keyof T>(o: T, name: K, make: () => T[K]): void {
  Object.defineProperty(o, name, {
    enumerable: true,
    configurable: true,
    get() {
      const value = make();
      Object.defineProperty(o, name, { value, enumerable: true, writable: true, configurable: true });
      return value;
    },
    set(value: T[K]) {
      Object.defineProperty(o, name, { value, enumerable: true, writable: true, configurable: true });
    },
  });
}

/** `decide`, reading the fleet split (a query) only when the rules ask for it. */
async function decideWithFleet(c: ClientFigures, probes: Record<string, ProbeFigures>, fleet: () => Promise<PartHealth[]>, t: VerdictThresholds, siblings?: SiblingProbes, slowOpens = 0): Promise<Decision> {
  let wanted = false;
  const first = decide(c, probes, () => ((wanted = true), []), t, siblings, slowOpens);
  return wanted ? decide(c, probes, await fleet(), t, siblings, slowOpens) : first;
}

/**
 * Says why a key has no usable probes: every location set aside (`probes_set_aside`), or
 * locations that probed it within `stale_probe_lookback_s` and stopped (`probes_stale`, naming
 * them) — only a key no location ever covered is `no_probes`.
 */
async function nameMissing(d: Decision, probes: Record<string, ProbeFigures>, silent: () => Promise<{ location: string; last_ts: number }[]>): Promise<Decision> {
  if (d.verdict !== 'insufficient_data' || d.hint !== 'no_probes') return d;
  if (Object.keys(probes).length > 0) return { ...d, hint: 'probes_set_aside' };
  const stopped = await silent();
  return stopped.length > 0 ? { ...d, hint: 'probes_stale', silent: stopped } : d;
}

/** Not asked yet: a breaker open now, since its earliest open instance's last change, waits for probes newer than that. */
async function holdOpen(pending: PendingProbesSource, keyId: number, d: Decision, states: Map<number, InstanceState>, usable: string[], to: number, t: VerdictThresholds): Promise<Decision> {
  let openSince = Infinity;
  for (const st of states.values()) if (isOpenState(st.state)) openSince = Math.min(openSince, st.since);
  if (openSince === Infinity) return d;
  return holdBeforeAsking(d, openSince, await pending.probesSince(keyId, openSince, to), usable, to, pending.pendingMaxMs, t);
}
