/**
 * Drill telemetry cut into the drills of a run: each kind ran for `step_ms` in the order of
 * the command, so an event belongs to the step its time falls in (a window or tasks event
 * by its midpoint). Summed per step into the figures the judge reads.
 */
import { keyId, type BreakerKey, type DrillKind, type TasksEvent, type TelemetryEvent, type TransitionEvent, type WindowEvent } from '@breakerbox/protocol';
import type { DrillBatchRecord, DrillRunRecord } from '../storage/storage.ts';

/** One step of a run: its kind and span. */
export interface DrillStep {
  kind: DrillKind;
  from: number;
  to: number;
}

/** What the drilled keys and the service's calls did during one step. */
export interface StepTraffic {
  /** Attempts on the drilled keys (window `calls`) and their outcomes. */
  attempts: number;
  ok: number;
  slow: number;
  retries: number;
  errors: Record<string, number>;
  /** Windows of the drilled keys (for the alert evaluation). */
  windows: WindowEvent[];
  /** Calls (tasks: completed + failed), user-visible failures, calls answered by a fallback (level ≥ 1), attempts of those calls. */
  calls: number;
  failed: number;
  fallbackAnswered: number;
  callAttempts: number;
  /** Transitions of the drilled keys, oldest first. */
  transitions: TransitionEvent[];
  /** Sampled attempts on a drilled key that failed with `auth` on a second or later attempt of their call. */
  authRetriedSamples: number;
  /** Instances that sent traffic in the step. */
  instances: Set<string>;
}

/** The steps of a run: each kind for `stepMs` from the issue time, cut at the run's end (a stop). */
export function drillSteps(run: Pick<DrillRunRecord, 'kinds' | 'stepMs' | 'issuedAt' | 'endsAt'>): DrillStep[] {
  return run.kinds.map((kind, i) => {
    const from = run.issuedAt + i * run.stepMs;
    return { kind, from: Math.min(from, run.endsAt), to: Math.min(from + run.stepMs, run.endsAt) };
  });
}

const timeOf = (e: TelemetryEvent): number => ('ts' in e ? e.ts : (e.start + e.end) / 2);

const emptyTraffic = (): StepTraffic => ({
  attempts: 0, ok: 0, slow: 0, retries: 0, errors: {}, windows: [], calls: 0, failed: 0, fallbackAnswered: 0, callAttempts: 0,
  transitions: [], authRetriedSamples: 0, instances: new Set(),
});

/**
 * The keys a run drilled: the command's, else every chain's primary named by the run's
 * tasks events, else (older senders name none) every key that reported in it.
 */
export function drilledKeys(run: Pick<DrillRunRecord, 'keys'>, batches: readonly DrillBatchRecord[]): Set<string> {
  if (run.keys) return new Set(run.keys.map(keyId));
  const primaries = new Set<string>();
  const all = new Set<string>();
  for (const b of batches) {
    for (const e of b.events) {
      if (e.type === 'tasks' && e.key) primaries.add(keyId(e.key));
      if ('key' in e && e.key) all.add(keyId(e.key as BreakerKey));
    }
  }
  return primaries.size > 0 ? primaries : all;
}

/** Sums a run's batches per step (events outside every step are left out). */
export function trafficBySteps(steps: readonly DrillStep[], keys: ReadonlySet<string>, batches: readonly DrillBatchRecord[]): StepTraffic[] {
  const out = steps.map(emptyTraffic);
  const stepOf = (t: number) => steps.findIndex((s) => t >= s.from && t < s.to);
  for (const b of batches) {
    const instance = `${b.service}/${b.instance}`;
    for (const e of b.events) {
      const i = stepOf(timeOf(e));
      if (i < 0) continue;
      const t = out[i]!;
      // A chain that starts at an undrilled key is not the drill's (a sender too old to name the key counts).
      if (e.type === 'tasks' && (!e.key || keys.has(keyId(e.key)))) {
        addTasks(t, e);
        t.instances.add(instance);
      } else if (e.type === 'window' && keys.has(keyId(e.key))) {
        addWindow(t, e);
        t.instances.add(instance);
      } else if (e.type === 'transition' && keys.has(keyId(e.key))) {
        t.transitions.push(e);
      }
    }
  }
  for (const t of out) t.transitions.sort((a, b) => a.ts - b.ts);
  return out;
}

function addTasks(t: StepTraffic, e: TasksEvent): void {
  t.calls += e.completed + e.failed;
  t.failed += e.failed;
  t.callAttempts += e.attempts;
  for (const level of ['1', '2', '3', '4'] as const) t.fallbackAnswered += e.levels[level] ?? 0;
}

function addWindow(t: StepTraffic, e: WindowEvent): void {
  t.windows.push(e);
  t.attempts += e.calls;
  t.ok += e.ok;
  t.slow += e.slow;
  t.retries += e.retries;
  for (const [cls, n] of Object.entries(e.errors)) t.errors[cls] = (t.errors[cls] ?? 0) + (n ?? 0);
  for (const s of e.samples ?? []) if (s.error_class === 'auth' && s.attempt > 1) t.authRetriedSamples++;
}
