import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/schema.ts';
import type { AlertChange, NotificationsPart, Storage, StoredAlert } from '../storage/storage.ts';
import type { KeyAnalysis } from '../verdicts/analyse.ts';
import type { VerdictEngine } from '../verdicts/verdict-engine.ts';
import type { Dispatcher } from '../notifiers/dispatcher.ts';
import type { NotificationEvent, NotificationGroup, NotificationJob } from '../notifiers/types.ts';
import type { ResolvedNotifier } from '../notifiers/dispatcher.ts';
import type { ServerClock } from '../clock.ts';
import type { VerdictThresholds } from '../verdicts/figures.ts';
import { groupIncidents, type IncidentIndex } from '../verdicts/incidents.ts';
import { byLead, digestOf, groupOf, ownTitle } from './grouping.ts';
import { pageSamples } from './page-samples.ts';
import type { RuleContext } from './rules/context.ts';
import { costPerSuccessRule } from './rules/cost-per-success.ts';
import { fallbackFailingRule } from './rules/fallback-failing.ts';
import { flappingRule } from './rules/flapping.ts';
import { openShareRule } from './rules/open-share.ts';
import { probeFailingRule } from './rules/probe-failing.ts';
import { proberUnhealthyRule } from './rules/prober-unhealthy.ts';
import { matches, type AlertLabels, type Silence, type SilenceStore } from './silences.ts';
import { verdictPhrase } from './summary.ts';
import type { AlertState, AlertView, Condition, RuleName } from './types.ts';

/** What one evaluation pass did. */
export interface EvaluationResult {
  at: number;
  took_ms: number;
  conditions: number;
  pending: number;
  firing: number;
  resolved: number;
  notifications: number;
}

/** The alert engine: rules → lifecycle → notifications. */
export interface AlertEngine {
  /** One evaluation pass at `now`; resolves once its changes are stored and its notifications queued (never sent). */
  evaluate(now?: number): Promise<EvaluationResult>;
  /** Alerts for the API, with their silences (see `AlertsPart.list` for order and limits). */
  list(options: { state?: AlertState; limit: number; fingerprint?: string }, now?: number): Promise<AlertView[]>;
  /** Records a finished delivery (the dispatcher calls it). */
  recordResult(job: NotificationJob, notifier: string, ok: boolean): Promise<void>;
}

/** Everything the engine works with. */
export interface AlertEngineOptions {
  storage: Pick<Storage, 'alerts' | 'notifications' | 'rollups' | 'events' | 'lease' | 'samples'>;
  verdicts: VerdictEngine;
  config: Config['alerts'];
  silences: SilenceStore;
  dispatcher: Dispatcher;
  log: FastifyBaseLogger;
  clock: ServerClock;
  /** The verdict thresholds (provider aliases group incidents). */
  verdictThresholds: VerdictThresholds;
}

const DAY = 86_400_000;
/** Resolved alerts are considered for their resolve notice this long. */
const RESOLVE_NOTICE_MS = 3_600_000;
/** After a failed delivery, the next evaluation retries it no sooner than this. */
const FAILED_RETRY_MS = 60_000;

/** The labels silences match on. */
export function labelsOf(a: Pick<AlertView, 'rule' | 'key' | 'location' | 'operation' | 'severity' | 'fingerprint'>): AlertLabels {
  return {
    rule: a.rule, provider: a.key?.provider ?? '', endpoint: a.key?.endpoint ?? '', model: a.key?.model ?? '', region: a.key?.region ?? '',
    location: a.location ?? '', operation: a.operation ?? '', severity: a.severity, fingerprint: a.fingerprint,
  };
}

function toView(a: StoredAlert, silences: Silence[], keyIds?: Map<number, number | null>): AlertView {
  keyIds?.set(a.id, a.keyId);
  const { keyId: _keyId, ...rest } = a;
  const by = silences.filter((s) => matches(s.matchers, labelsOf(a))).map((s) => s.id);
  return { ...rest, silenced: by.length > 0, silenced_by: by };
}

/** Creates the engine. */
export function createAlertEngine(o: AlertEngineOptions): AlertEngine {
  const { alerts: store } = o.storage;
  const notes: NotificationsPart = o.storage.notifications;
  const rulesCfg = o.config.rules;
  const groupIntervalMs = o.config.group_interval_s * 1000;
  const groupWaitMs = o.config.group_wait_s * 1000;
  const storedOf = (a: AlertView): Pick<StoredAlert, 'rule' | 'keyId' | 'location' | 'fingerprint'> => ({ rule: a.rule, keyId: keyIds.get(a.id) ?? null, location: a.location, fingerprint: a.fingerprint });
  const keyIds = new Map<number, number | null>();

  const runRules = async (ctx: RuleContext): Promise<Condition[]> => {
    const out: Condition[] = [];
    if (rulesCfg.flapping.enabled) out.push(...(await flappingRule(ctx, rulesCfg.flapping)));
    if (rulesCfg.open_share.enabled) out.push(...(await openShareRule(ctx, rulesCfg.open_share)));
    if (rulesCfg.fallback_failing.enabled) out.push(...(await fallbackFailingRule(ctx, rulesCfg.fallback_failing)));
    if (rulesCfg.probe_failing.enabled) out.push(...(await probeFailingRule(ctx, rulesCfg.probe_failing)));
    if (rulesCfg.cost_per_success.enabled) out.push(...(await costPerSuccessRule(ctx, rulesCfg.cost_per_success)));
    if (rulesCfg.prober_unhealthy.enabled) out.push(...(await proberUnhealthyRule(ctx, rulesCfg.prober_unhealthy)));
    return out;
  };

  /** The change one target's status makes to its alert (if any): the lifecycle with `for` and hysteresis. */
  const step = (now: number, c: Condition, existing: StoredAlert | undefined, verdicts: Map<number, KeyAnalysis>, counts: { resolved: number }): AlertChange | null => {
    const rule = rulesCfg[c.rule as RuleName];
    const analysis = c.keyId === null ? undefined : verdicts.get(c.keyId);
    const summary = c.key ? `${c.text} — ${verdictPhrase(analysis)}` : c.text;
    const fields = {
      summary, value: c.value, severity: rule.severity,
      verdict: analysis?.decision.verdict ?? null, hint: analysis?.decision.hint ?? null, updated_at: now,
    };
    if (!existing) {
      if (c.status !== 'fire') return null;
      const firing = rule.for_s === 0;
      return {
        op: 'insert',
        alert: {
          fingerprint: c.fingerprint, rule: c.rule, keyId: c.keyId, location: c.location, operation: c.operation,
          state: firing ? 'firing' : 'pending', started_at: now, fired_at: firing ? now : null, resolved_at: null, ...fields,
        },
      };
    }
    if (existing.state === 'pending') {
      if (c.status !== 'fire') return { op: 'remove', id: existing.id };
      const due = now - existing.started_at >= rule.for_s * 1000;
      return { op: 'update', id: existing.id, fields: { ...fields, state: due ? 'firing' : 'pending', fired_at: due ? now : null, resolved_at: null } };
    }
    if (c.status === 'clear') {
      counts.resolved++;
      return { op: 'update', id: existing.id, fields: { ...fields, state: 'resolved', fired_at: existing.fired_at, resolved_at: now } };
    }
    return { op: 'update', id: existing.id, fields: { ...fields, state: 'firing', fired_at: existing.fired_at, resolved_at: null } };
  };

  /** Evidence for a page: the latest failed calls of its alerts' keys. */
  const samplesOf = (alerts: AlertView[], now: number) =>
    pageSamples(o.storage.samples, alerts.map((a) => keyIds.get(a.id)).filter((k): k is number => typeof k === 'number'), now);

  /** Queues what one Alertmanager notifier is owed per alert: Alertmanager groups by the `incident` label itself. */
  const notifyPerAlert = async (now: number, n: ResolvedNotifier, alerts: AlertView[], index: IncidentIndex): Promise<number> => {
    let queued = 0;
    for (const alert of alerts) {
      if (alert.silenced || !n.wants(alert.rule, alert.severity) || o.dispatcher.busy(`alert:${alert.id}`, n.name)) continue;
      const st = await notes.alertState(alert.id, n.name);
      if (st?.last_status === 'failed' && now - st.last_attempt_at < Math.min(FAILED_RETRY_MS, n.repeatMs)) continue;
      let event: NotificationEvent | null = null;
      if (alert.state === 'firing') {
        if (!st?.last_event) event = 'firing';
        else if (st.last_event !== 'resolved' && now - (st.last_sent_at ?? 0) >= n.repeatMs) event = 'repeat';
      } else if (alert.state === 'resolved' && n.config.send_resolved && (st?.last_event === 'firing' || st?.last_event === 'repeat')) {
        event = 'resolved';
      }
      if (!event) continue;
      const { key, incident } = alert.state === 'firing' ? groupOf(storedOf(alert), index) : { key: alert.group_key ?? alert.fingerprint, incident: null };
      const samples = event === 'resolved' ? [] : await samplesOf([alert], now);
      const group: NotificationGroup = { key, title: incident?.title ?? ownTitle(alert), incident, alerts: [alert], digest: '', perAlert: true, samples };
      await o.dispatcher.enqueue(n, { alert, group, event, at: now });
      queued++;
    }
    return queued;
  };

  /**
   * Queues what each other notifier is owed per group (Alertmanager's group_by, done here):
   * one page when a group first fires, an update when its alerts or verdict change (at most
   * every `group_interval_s`), a reminder every repeat interval, one resolve notice at the
   * end. Silenced alerts are left out of their group (as Alertmanager mutes them); a
   * group whose firing alerts are all silenced sends nothing, not even a resolve notice.
   */
  const notifyGrouped = async (now: number, n: ResolvedNotifier, alerts: AlertView[], index: IncidentIndex): Promise<number> => {
    const groups = new Map<string, { incident: NotificationGroup['incident']; firing: AlertView[]; resolved: AlertView[]; silenced: number }>();
    for (const alert of alerts) {
      if (!n.wants(alert.rule, alert.severity)) continue;
      const { key, incident } = alert.state === 'firing' ? groupOf(storedOf(alert), index) : { key: alert.group_key ?? alert.fingerprint, incident: null };
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { incident: null, firing: [], resolved: [], silenced: 0 }));
      g.incident ??= incident;
      if (alert.silenced) g.silenced += alert.state === 'firing' ? 1 : 0;
      else if (alert.state === 'firing') g.firing.push(alert);
      else if (alert.state === 'resolved') g.resolved.push(alert);
    }
    let queued = 0;
    for (const [key, g] of groups) {
      if ((g.silenced > 0 && g.firing.length === 0) || o.dispatcher.busy(key, n.name)) continue;
      const st = await notes.groupState(key, n.name);
      if (st?.last_status === 'failed' && now - st.last_attempt_at < Math.min(FAILED_RETRY_MS, n.repeatMs)) continue;
      const open = st?.last_event === 'firing' || st?.last_event === 'update' || st?.last_event === 'repeat';
      const firing = g.firing.sort(byLead);
      const digest = digestOf(firing, g.incident);
      let event: NotificationEvent | null = null;
      if (firing.length > 0) {
        // group_wait: a first page whose verdict waits for requested probes holds until they
        // answer or `group_wait_s` has passed since the group fired, then pages with what is known.
        if (!open && firing.some((a) => a.hint === 'probes_pending')) {
          const firedAt = Math.min(...firing.map((a) => a.fired_at ?? now));
          if (now - firedAt < groupWaitMs) continue;
        }
        if (!open) event = 'firing';
        else if (st!.digest !== digest && now - (st!.last_sent_at ?? 0) >= groupIntervalMs) event = 'update';
        else if (now - (st!.last_sent_at ?? 0) >= n.repeatMs) event = 'repeat';
      } else if (open && g.resolved.length > 0 && n.config.send_resolved) {
        event = 'resolved';
      }
      if (!event) continue;
      const carried = event === 'resolved' ? g.resolved.sort(byLead) : firing;
      const lead = carried[0]!;
      const samples = event === 'resolved' ? [] : await samplesOf(carried, now);
      const group: NotificationGroup = { key, title: g.incident?.title ?? ownTitle(lead), incident: g.incident, alerts: carried, digest, perAlert: false, samples };
      await o.dispatcher.enqueue(n, { alert: lead, group, event, at: now });
      queued++;
    }
    return queued;
  };

  const notify = async (now: number, silences: Silence[], index: IncidentIndex): Promise<number> => {
    keyIds.clear();
    const alerts = (await store.toNotify(now - RESOLVE_NOTICE_MS)).map((a) => toView(a, silences, keyIds));
    let queued = 0;
    for (const n of o.dispatcher.notifiers) {
      queued += n.config.type === 'alertmanager' ? await notifyPerAlert(now, n, alerts, index) : await notifyGrouped(now, n, alerts, index);
    }
    return queued;
  };

  /** Records what a notifier now knows, per alert or per group. */
  const recordResult = async (job: NotificationJob, notifier: string, ok: boolean) => {
    if (job.group.perAlert) await notes.recordAlert(job.alert.id, notifier, job.event === 'update' ? 'repeat' : job.event, ok, job.at);
    else await notes.recordGroup(job.group.key, notifier, job.event, ok, job.at, job.group.digest);
  };

  const stale = (now: number, started: number, conditions: number): EvaluationResult => ({
    at: now, took_ms: Number((performance.now() - started).toFixed(1)), conditions, pending: 0, firing: 0, resolved: 0, notifications: 0,
  });

  return {
    recordResult,
    async evaluate(now = o.clock.now()) {
      const started = performance.now();
      const memo = new Map<number, Promise<Map<number, KeyAnalysis>>>();
      const ctx: RuleContext = {
        now,
        storage: o.storage,
        analysesOver(seconds) {
          let m = memo.get(seconds);
          if (!m) {
            m = o.verdicts.analyse({ from: now - seconds * 1000, to: now }).then((list) => new Map(list.map((a) => [a.info.id, a])));
            memo.set(seconds, m);
          }
          return m;
        },
        verdictAnalyses: () => ctx.analysesOver(o.config.verdict_window_s),
      };
      const conditions = await runRules(ctx);
      const verdicts = await ctx.analysesOver(o.config.verdict_window_s);
      const counts = { resolved: 0 };
      const changes: AlertChange[] = [];
      const existing = await store.unresolved();
      for (const c of conditions) {
        const change = step(now, c, existing.get(c.fingerprint), verdicts, counts);
        if (change) changes.push(change);
        existing.delete(c.fingerprint);
      }
      // Targets no rule reported any more (key gone quiet, rule disabled): their condition is clear.
      for (const a of existing.values()) {
        const change = step(now, { fingerprint: a.fingerprint, rule: a.rule, keyId: a.keyId, key: a.key, location: a.location, operation: a.operation, status: 'clear', value: a.value, text: a.summary.split(' — ')[0]! }, a, verdicts, counts);
        if (change) changes.push(change);
      }
      // A pass that outlived this collector's lease (its process hung while the rules ran, and
      // another collector leads now) stores and sends nothing: the leader's own pass does.
      if (!o.storage.lease.isHeld()) return stale(now, started, conditions.length);
      // One transaction: a pass is stored whole or not at all.
      await store.apply(changes);
      // Incidents over the verdict window: firing alerts remember the group they notify under.
      const index = groupIncidents([...verdicts.values()], o.verdictThresholds.provider_aliases);
      const regroup: AlertChange[] = [];
      for (const a of (await store.unresolved()).values()) {
        if (a.state !== 'firing') continue;
        const { key } = groupOf(a, index);
        if (a.group_key !== key) regroup.push({ op: 'group', id: a.id, groupKey: key });
      }
      if (regroup.length) await store.apply(regroup);
      // Silences are about what is sent now: judged on the clock, not the evaluation time.
      const silences = await o.silences.active(o.clock.now());
      if (!o.storage.lease.isHeld()) return stale(now, started, conditions.length);
      const notifications = await notify(now, silences, index);
      const unresolved = [...(await store.unresolved()).values()];
      return {
        at: now,
        took_ms: Number((performance.now() - started).toFixed(1)),
        conditions: conditions.length,
        pending: unresolved.filter((a) => a.state === 'pending').length,
        firing: unresolved.filter((a) => a.state === 'firing').length,
        resolved: counts.resolved,
        notifications,
      };
    },
    async list(options, now = o.clock.now()) {
      const since = options.state === 'resolved' ? now - o.config.history_days * DAY : now - DAY;
      const silences = await o.silences.active(o.clock.now());
      return (await store.list({ ...options, since })).map((a) => toView(a, silences));
    },
  };
}
