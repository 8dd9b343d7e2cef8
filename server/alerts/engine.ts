import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/schema.ts';
import type { Db } from '../storage/database.ts';
import type { KeyAnalysis } from '../verdicts/analyse.ts';
import type { VerdictEngine } from '../verdicts/verdict-engine.ts';
import type { Dispatcher } from '../notifiers/dispatcher.ts';
import type { NotificationEvent } from '../notifiers/types.ts';
import { createAlertStore, type AlertStore, type StoredAlert } from './alert-store.ts';
import type { RuleContext } from './rules/context.ts';
import { costPerSuccessRule } from './rules/cost-per-success.ts';
import { fallbackFailingRule } from './rules/fallback-failing.ts';
import { flappingRule } from './rules/flapping.ts';
import { openShareRule } from './rules/open-share.ts';
import { probeFailingRule } from './rules/probe-failing.ts';
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
  /** One evaluation pass at `now`; notifications are queued, never awaited. */
  evaluate(now?: number): EvaluationResult;
  list(options: { state?: AlertState; limit: number; fingerprint?: string }, now?: number): AlertView[];
  store: AlertStore;
}

/** Everything the engine works with. */
export interface AlertEngineOptions {
  db: Db;
  verdicts: VerdictEngine;
  config: Config['alerts'];
  silences: SilenceStore;
  dispatcher: Dispatcher;
  log: FastifyBaseLogger;
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

function toView(a: StoredAlert, silences: Silence[]): AlertView {
  const { keyId: _keyId, ...rest } = a;
  const by = silences.filter((s) => matches(s.matchers, labelsOf(a))).map((s) => s.id);
  return { ...rest, silenced: by.length > 0, silenced_by: by };
}

/** Creates the engine. */
export function createAlertEngine(o: AlertEngineOptions): AlertEngine {
  const store = createAlertStore(o.db);
  const rulesCfg = o.config.rules;
  let lastPrune = 0;

  const runRules = (ctx: RuleContext): Condition[] => {
    const out: Condition[] = [];
    if (rulesCfg.flapping.enabled) out.push(...flappingRule(ctx, rulesCfg.flapping));
    if (rulesCfg.open_share.enabled) out.push(...openShareRule(ctx, rulesCfg.open_share));
    if (rulesCfg.fallback_failing.enabled) out.push(...fallbackFailingRule(ctx, rulesCfg.fallback_failing));
    if (rulesCfg.probe_failing.enabled) out.push(...probeFailingRule(ctx, rulesCfg.probe_failing));
    if (rulesCfg.cost_per_success.enabled) out.push(...costPerSuccessRule(ctx, rulesCfg.cost_per_success));
    return out;
  };

  /** Applies one target's status to its alert (if any): the lifecycle with `for` and hysteresis. */
  const step = (now: number, c: Condition, existing: StoredAlert | undefined, verdicts: Map<number, KeyAnalysis>, counts: { resolved: number }) => {
    const rule = rulesCfg[c.rule as RuleName];
    const analysis = c.keyId === null ? undefined : verdicts.get(c.keyId);
    const summary = c.key ? `${c.text} — ${verdictPhrase(analysis)}` : c.text;
    const fields = {
      summary, value: c.value, severity: rule.severity,
      verdict: analysis?.decision.verdict ?? null, hint: analysis?.decision.hint ?? null, updated_at: now,
    };
    if (!existing) {
      if (c.status !== 'fire') return;
      const firing = rule.for_s === 0;
      store.insert({
        fingerprint: c.fingerprint, rule: c.rule, keyId: c.keyId, location: c.location, operation: c.operation,
        state: firing ? 'firing' : 'pending', started_at: now, fired_at: firing ? now : null, resolved_at: null, ...fields,
      });
      return;
    }
    if (existing.state === 'pending') {
      if (c.status !== 'fire') return store.remove(existing.id);
      const due = now - existing.started_at >= rule.for_s * 1000;
      store.update(existing.id, { ...fields, state: due ? 'firing' : 'pending', fired_at: due ? now : null, resolved_at: null });
      return;
    }
    if (c.status === 'clear') {
      counts.resolved++;
      store.update(existing.id, { ...fields, state: 'resolved', fired_at: existing.fired_at, resolved_at: now });
    } else {
      store.update(existing.id, { ...fields, state: 'firing', fired_at: existing.fired_at, resolved_at: null });
    }
  };

  /** Queues what each notifier is owed: first notice, repeat, or resolve. Silenced alerts notify nobody. */
  const notify = (now: number, silences: Silence[]): number => {
    let queued = 0;
    for (const stored of store.toNotify(now - RESOLVE_NOTICE_MS)) {
      const alert = toView(stored, silences);
      if (alert.silenced) continue;
      for (const n of o.dispatcher.notifiers) {
        if (!n.wants(alert.rule, alert.severity) || o.dispatcher.busy(alert.id, n.name)) continue;
        const st = store.notifyState(alert.id, n.name);
        if (st?.last_status === 'failed' && now - st.last_attempt_at < Math.min(FAILED_RETRY_MS, n.repeatMs)) continue;
        let event: NotificationEvent | null = null;
        if (alert.state === 'firing') {
          if (!st?.last_event) event = 'firing';
          else if (st.last_event !== 'resolved' && now - (st.last_sent_at ?? 0) >= n.repeatMs) event = 'repeat';
        } else if (alert.state === 'resolved' && n.config.send_resolved && (st?.last_event === 'firing' || st?.last_event === 'repeat')) {
          event = 'resolved';
        }
        if (!event) continue;
        o.dispatcher.enqueue(n, { alert, event, at: now });
        queued++;
      }
    }
    return queued;
  };

  return {
    store,
    evaluate(now = Date.now()) {
      const started = performance.now();
      const memo = new Map<number, Map<number, KeyAnalysis>>();
      const ctx: RuleContext = {
        now,
        db: o.db,
        analysesOver(seconds) {
          let m = memo.get(seconds);
          if (!m) {
            m = new Map(o.verdicts.analyse({ from: now - seconds * 1000, to: now }).map((a) => [a.info.id, a]));
            memo.set(seconds, m);
          }
          return m;
        },
        verdictAnalyses: () => ctx.analysesOver(o.config.verdict_window_s),
      };
      const conditions = runRules(ctx);
      const verdicts = ctx.analysesOver(o.config.verdict_window_s);
      const counts = { resolved: 0 };
      o.db.transaction(() => {
        const existing = store.unresolved();
        for (const c of conditions) {
          step(now, c, existing.get(c.fingerprint), verdicts, counts);
          existing.delete(c.fingerprint);
        }
        // Targets no rule reported any more (key gone quiet, rule disabled): their condition is clear.
        for (const a of existing.values()) {
          step(now, { fingerprint: a.fingerprint, rule: a.rule, keyId: a.keyId, key: a.key, location: a.location, operation: a.operation, status: 'clear', value: a.value, text: a.summary.split(' — ')[0]! }, a, verdicts, counts);
        }
      })();
      // Silences are about what is sent now: judged on the wall clock, not the evaluation time.
      const silences = o.silences.active(Date.now());
      const notifications = notify(now, silences);
      if (now - lastPrune > 3_600_000) {
        lastPrune = now;
        const before = now - o.config.history_days * DAY;
        store.prune(before);
        o.silences.prune(now - 7 * DAY);
      }
      const unresolved = [...store.unresolved().values()];
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
    list(options, now = Date.now()) {
      const since = options.state === 'resolved' ? now - o.config.history_days * DAY : now - DAY;
      const silences = o.silences.active(Date.now());
      return store.list({ ...options, since }).map((a) => toView(a, silences));
    },
  };
}
