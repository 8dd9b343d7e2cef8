/**
 * Hand-built drill telemetry, as an SDK instance with drills enabled sends it (docs/drills.md):
 * per step, ten-second windows of the drilled primary and its fallback, the operation's tasks,
 * the primary's transitions — posted to the real `/v1/telemetry` with the run's `drill_id`.
 */
import { SseReader, type BreakerKey, type CallSample, type DrillCommand, type DrillKind, type TasksEvent, type TelemetryEvent, type TransitionEvent, type WindowEvent } from '@breakerbox/protocol';
import { windows, type TestCollector, type Traffic } from '../verdicts/support.ts';

export const PRIMARY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
export const FALLBACK: BreakerKey = { provider: 'anthropic', endpoint: 'messages', model: 'claude-3-5-haiku-latest' };

/** How a service behaves under one drill, per ten-second window. */
export interface StepBehaviour {
  primary?: Traffic;
  fallback?: Traffic;
  tasks?: { completed: number; failed: number; attempts: number; levels: TasksEvent['levels'] };
  /** Seconds after the step's start at which the primary's breaker opened, and why. */
  opens?: { afterS: number; reason: TransitionEvent['reason'] };
  /** Samples put on each primary window. */
  samples?: CallSample[];
}

/**
 * The events of one step `[from, from + stepMs)`: ten-second windows (the SDK's), or one
 * window over the whole step when it is shorter (a one-second drill in a CLI test).
 */
export function stepEvents(from: number, stepMs: number, b: StepBehaviour): TelemetryEvent[] {
  const to = from + stepMs;
  const WINDOW = Math.min(10_000, stepMs);
  const cut = (list: WindowEvent[]) => (WINDOW === 10_000 ? list : list.slice(0, 1).map((w) => ({ ...w, start: from, end: to })));
  const out: TelemetryEvent[] = [];
  const over = (key: BreakerKey, t: Traffic) => cut(windows(key, from, WINDOW === 10_000 ? to : from + 10_000, t));
  if (b.primary) out.push(...over(PRIMARY, b.primary).map((w) => (b.samples ? { ...w, samples: b.samples.map((s) => ({ ...s, ts: w.end - 1 })) } : w)));
  if (b.fallback) out.push(...over(FALLBACK, b.fallback));
  if (b.tasks) {
    for (let start = from; start + WINDOW <= to; start += WINDOW) {
      out.push({
        type: 'tasks', start, end: start + WINDOW, operation: 'draft', key: PRIMARY, completed: b.tasks.completed, failed: b.tasks.failed, degraded: 0,
        attempts: b.tasks.attempts, cost_usd: 0.01, levels: b.tasks.levels, fallback: { invoked: b.tasks.completed, failed: 0 },
      });
    }
  }
  if (b.opens) out.push({ type: 'transition', ts: from + Math.min(b.opens.afterS * 1000, stepMs - 1), key: PRIMARY, from: 'closed', to: 'open', reason: b.opens.reason });
  return out;
}

let seq = 0;

/** Posts one drill batch; returns the HTTP answer. */
export async function sendDrill(c: TestCollector, drillId: string, events: TelemetryEvent[], source = { service: 'drafts', instance: 'pod-1' }) {
  return c.app.inject({
    method: 'POST',
    url: '/v1/telemetry',
    headers: { authorization: `Bearer ${c.token}` },
    payload: { batch_id: `drill-${process.pid}-${seq++}`, source: { ...source, sdk: 'test/0' }, drill_id: drillId, events },
  });
}

/** A correctly configured service: every drill passes. */
export const CORRECT: Record<DrillKind, StepBehaviour> = {
  rate_limit: {
    primary: { calls: 10, errors: { rate_limit: 10 } },
    fallback: { calls: 10 },
    tasks: { completed: 10, failed: 0, attempts: 20, levels: { '1': 10 } },
  },
  slow_first_byte: {
    primary: { calls: 10, slow: 10 },
    fallback: { calls: 4 },
    tasks: { completed: 10, failed: 0, attempts: 14, levels: { '0': 6, '1': 4 } },
    opens: { afterS: 12, reason: 'slow_calls' },
  },
  primary_down: {
    primary: { calls: 10, errors: { network: 10 } },
    fallback: { calls: 10 },
    tasks: { completed: 10, failed: 0, attempts: 20, levels: { '1': 10 } },
  },
  truncated: {
    primary: { calls: 10, errors: { truncated: 10 } },
    fallback: { calls: 10 },
    tasks: { completed: 10, failed: 0, attempts: 20, levels: { '1': 10 } },
  },
  field_renamed: {
    primary: { calls: 10, errors: { invalid_output: 10 } },
    fallback: { calls: 10 },
    tasks: { completed: 10, failed: 0, attempts: 20, levels: { '2': 10 } },
  },
  auth_revoked: {
    primary: { calls: 10, errors: { auth: 10 } },
    fallback: { calls: 10 },
    tasks: { completed: 10, failed: 0, attempts: 20, levels: { '1': 10 } },
  },
};

/** A misconfigured service, one mistake per drill (the issue's list and more). */
export const MISCONFIGURED: Record<DrillKind, StepBehaviour> = {
  // Retries stacked on the drilled key (the SDK's retry.maxAttempts set to 3): each 429 retried twice before the fallback.
  rate_limit: {
    primary: { calls: 30, errors: { rate_limit: 30 } },
    fallback: { calls: 10 },
    tasks: { completed: 10, failed: 0, attempts: 40, levels: { '1': 10 } },
  },
  // No TTFT limit on the key: slow first bytes never open the breaker.
  slow_first_byte: { primary: { calls: 10, slow: 10 }, tasks: { completed: 10, failed: 0, attempts: 10, levels: { '0': 10 } } },
  // No fallback declared: a refused primary fails the user's call.
  primary_down: { primary: { calls: 10, errors: { network: 10 } }, tasks: { completed: 0, failed: 10, attempts: 10, levels: {} } },
  // finish_reason: length taken for an answer.
  truncated: { primary: { calls: 10 }, tasks: { completed: 10, failed: 0, attempts: 10, levels: { '0': 10 } } },
  // No validation declared: the renamed field goes to the caller as a success.
  field_renamed: { primary: { calls: 10 }, tasks: { completed: 10, failed: 0, attempts: 10, levels: { '0': 10 } } },
  // Retries on 401: two attempts per call on the revoked key.
  auth_revoked: {
    primary: { calls: 20, errors: { auth: 20 } },
    fallback: { calls: 10 },
    tasks: { completed: 10, failed: 0, attempts: 30, levels: { '1': 10 } },
    samples: [{ ts: 0, outcome: 'error', error_class: 'auth', status: 401, attempt: 2, duration_ms: 40 }],
  },
};

/**
 * A raw SSE reader on `GET /v1/fleet?service=` (what an SDK instance with drills enabled
 * subscribes to): the drill commands received so far, in order; `onDrill` sees each as it comes.
 */
export async function drillFeed(base: string, token: string, service: string | null, onDrill?: (d: DrillCommand) => void) {
  const ac = new AbortController();
  const res = await fetch(`${base}/v1/fleet${service ? `?service=${encodeURIComponent(service)}` : ''}`, { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
  if (res.status !== 200) throw new Error(`the feed answered ${res.status}`);
  const drills: DrillCommand[] = [];
  let ready = false;
  void (async () => {
    const reader = new SseReader();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const e of reader.push(chunk)) {
          if (e.event === 'ready') ready = true;
          if (e.event !== 'drill') continue;
          const d = JSON.parse(e.data) as DrillCommand;
          drills.push(d);
          onDrill?.(d);
        }
      }
    } catch { /* aborted */ }
  })();
  return { drills, isReady: () => ready, close: () => ac.abort() };
}
