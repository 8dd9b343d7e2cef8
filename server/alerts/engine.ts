import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/schema.ts';
import { keysInUse } from '../lifecycle/models-in-use.ts';
import type { RetirementCalendar } from '../lifecycle/calendar.ts';
import type { AlertChange, NotificationsPart, Storage, StoredAlert } from '../storage/storage.ts';
import type { KeyAnalysis } from '../verdicts/analyse.ts';
import type { VerdictEngine } from '../verdicts/verdict-engine.ts';
import type { Dispatcher } from '../notifiers/dispatcher.ts';
import type { NotificationGroup } from '../notifiers/types.ts';
import type { ResolvedNotifier } from '../notifiers/dispatcher.ts';
import type { ServerClock } from '../clock.ts';
import type { VerdictThresholds } from '../verdicts/figures.ts';
import { groupIncidents, type IncidentIndex } from '../verdicts/incidents.ts';
import { alertEvent, groupEvent } from './dedup.ts';
import { byLead, digestOf, groupAlerts, groupOf, ownTitle } from './grouping.ts';
import { pageSamples } from './page-samples.ts';
import { clearedCondition, lifecycleStep } from './lifecycle.ts';
import type { RuleContext } from './rules/context.ts';
import { runRules } from './rule-registry.ts';
import { silenced } from './silencing.ts';
import type { Silence, SilenceStore } from './silences.ts';
import type { AlertState, AlertView, RuleName } from './types.ts';


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
}

/** Everything the engine works with. */
export interface AlertEngineOptions {
  storage: Pick<Storage, 'alerts' | 'notifications' | 'rollups' | 'events' | 'lease' | 'samples' | 'telemetry'>;
  /** The retirement calendar (the model_retiring rule). */
  calendar: RetirementCalendar;
  verdicts: VerdictEngine;
  config: Config['alerts'];
  silences: SilenceStore;
  dispatcher: Dispatcher;
  log: FastifyBaseLogger;
  clock: ServerClock;
  /** The verdict thresholds (provider aliases group incidents). */
  verdictThresholds: VerdictThresholds;
  /** Told the verdict window's analyses of every pass the leader stores (the fleet feed derives its decisions from them). */
  onVerdicts?(now: number, analyses: KeyAnalysis[]): Promise<void>;
}

const DAY = 86_400_000;
/** Resolved alerts are considered for their resolve notice this long. */
const RESOLVE_NOTICE_MS = 3_600_000;

/** Creates the engine. */
export function createAlertEngine(o: AlertEngineOptions): AlertEngine {
  const { alerts: store } = o.storage;
  const notes: NotificationsPart = o.storage.notifications;
  const rulesCfg = o.config.rules;
  const groupIntervalMs = o.config.group_interval_s * 1000;
  const groupWaitMs = o.config.group_wait_s * 1000;
  const storedOf = (a: AlertView): Pick<StoredAlert, 'rule' | 'keyId' | 'location' | 'fingerprint'> => ({ rule: a.rule, keyId: keyIds.get(a.id) ?? null, location: a.location, fingerprint: a.fingerprint });
  const keyIds = new Map<number, number | null>();

  /** Evidence for a page: the latest failed calls of its alerts' keys. */
  const samplesOf = (alerts: AlertView[], now: number) =>
    pageSamples(o.storage.samples, alerts.map((a) => keyIds.get(a.id)).filter((k): k is number => typeof k === 'number'), now);

  /** Queues what one Alertmanager notifier is owed per alert: Alertmanager groups by the `incident` label itself. */
  const notifyPerAlert = async (now: number, n: ResolvedNotifier, alerts: AlertView[], index: IncidentIndex): Promise<number> => {
    let queued = 0;
    for (const alert of alerts) {
      if (alert.silenced || !n.wants(alert.rule, alert.severity) || o.dispatcher.busy(`alert:${alert.id}`, n.name)) continue;
      const event = alertEvent(alert, await notes.alertState(alert.id, n.name), now, { repeatMs: n.repeatMs, sendResolved: n.config.send_resolved });
      if (!event) continue;
      const { key, incident } = alert.state === 'firing' ? groupOf(storedOf(alert), index) : { key: alert.group_key ?? alert.fingerprint, incident: null };
      const samples = event === 'resolved' ? [] : await samplesOf([alert], now);
      const group: NotificationGroup = { key, title: incident?.title ?? ownTitle(alert), incident, alerts: [alert], digest: '', perAlert: true, samples };
      await o.dispatcher.enqueue(n, { alert, group, event, at: now });
      queued++;
    }
    return queued;
  };

  /** Queues what each other notifier is owed per group: grouping (stage 3), then one dedup decision per group (stage 5). */
  const notifyGrouped = async (now: number, n: ResolvedNotifier, alerts: AlertView[], index: IncidentIndex): Promise<number> => {
    const groups = groupAlerts(alerts, index, (a) => keyIds.get(a.id) ?? null, (a) => n.wants(a.rule, a.severity));
    const options = { repeatMs: n.repeatMs, sendResolved: n.config.send_resolved, groupWaitMs, groupIntervalMs };
    let queued = 0;
    for (const [key, g] of groups) {
      if (o.dispatcher.busy(key, n.name)) continue;
      const digest = digestOf(g.firing, g.incident);
      const event = groupEvent({ ...g, digest }, await notes.groupState(key, n.name), now, options);
      if (!event) continue;
      const carried = event === 'resolved' ? [...g.resolved].sort(byLead) : g.firing;
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
    const alerts = (await store.toNotify(now - RESOLVE_NOTICE_MS)).map((a) => (keyIds.set(a.id, a.keyId), silenced(a, silences)));
    let queued = 0;
    for (const n of o.dispatcher.notifiers) {
      queued += n.config.type === 'alertmanager' ? await notifyPerAlert(now, n, alerts, index) : await notifyGrouped(now, n, alerts, index);
    }
    return queued;
  };

  const stale = (now: number, started: number, conditions: number): EvaluationResult => ({
    at: now, took_ms: Number((performance.now() - started).toFixed(1)), conditions, pending: 0, firing: 0, resolved: 0, notifications: 0,
  });

  return {
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
        keysInUse: (from) => keysInUse(o.storage, o.calendar, from, now, { datedOnly: true }),
        thresholds: o.verdictThresholds,
      };
      // Stage 1: every enabled rule's conditions.
      const conditions = await runRules(ctx, rulesCfg);
      const verdicts = await ctx.analysesOver(o.config.verdict_window_s);
      const counts = { resolved: 0 };
      const changes: AlertChange[] = [];
      // Stage 2: the lifecycle of each target; targets no rule reported any more (key gone quiet, rule disabled) are clear.
      const existing = await store.unresolved();
      const targets = [...conditions.map((c) => [c, existing.get(c.fingerprint)] as const)];
      for (const c of conditions) existing.delete(c.fingerprint);
      for (const a of existing.values()) targets.push([clearedCondition(a), a]);
      for (const [c, current] of targets) {
        const change = lifecycleStep(now, c, current, rulesCfg[c.rule as RuleName], c.keyId === null ? undefined : verdicts.get(c.keyId));
        if (!change) continue;
        if (change.op === 'update' && change.fields.state === 'resolved') counts.resolved++;
        changes.push(change);
      }
      // A pass that outlived this collector's lease (its process hung while the rules ran, and
      // another collector leads now) stores and sends nothing: the leader's own pass does.
      if (!o.storage.lease.isHeld()) return stale(now, started, conditions.length);
      // One transaction: a pass is stored whole or not at all.
      await store.apply(changes);
      // The fleet's decisions come from the same analyses; a failure there never stops alerting.
      await o.onVerdicts?.(now, [...verdicts.values()]).catch((err) => o.log.error({ err }, 'deriving fleet decisions failed'));
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
      return (await store.list({ ...options, since })).map((a) => silenced(a, silences));
    },
  };
}
