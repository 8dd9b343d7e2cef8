/**
 * What "when" means for a target: an `interval` is turned into the equivalent cron
 * expression (node-cron runs both), and every schedule gets a stable jitter offset
 * so targets sharing a schedule do not fire in lockstep.
 */
import cron from 'node-cron';
import type { ParsedFields } from 'node-cron';

/** A resolved schedule: the cron expression node-cron runs, plus facts for the plan. */
export interface ScheduleSpec {
  /** Six-field cron expression (seconds first), evaluated in `timezone`. */
  cron: string;
  /** Where it came from: the `interval` field or the `cron` field. */
  source: 'interval' | 'cron';
  /** Shortest gap between two runs, in ms (exact for intervals, sampled for cron). */
  minGapMs: number;
  /** Average number of runs per day. */
  runsPerDay: number;
}

/**
 * Turns an interval into a cron expression. Only intervals that divide the minute,
 * hour or day evenly can be expressed; anything else gets a message saying why.
 */
export function intervalToCron(ms: number): { cron: string } | { problem: string } {
  if (ms < 1_000 || ms % 1_000 !== 0) return { problem: 'must be whole seconds, at least 1s' };
  const s = ms / 1_000;
  if (s < 60 && 60 % s === 0) return { cron: s === 1 ? '* * * * * *' : `*/${s} * * * * *` };
  if (s % 60 === 0) {
    const m = s / 60;
    if (m < 60 && 60 % m === 0) return { cron: m === 1 ? '0 * * * * *' : `0 */${m} * * * *` };
    if (m % 60 === 0) {
      const h = m / 60;
      if (h < 24 && 24 % h === 0) return { cron: h === 1 ? '0 0 * * * *' : `0 0 */${h} * * *` };
      if (h === 24) return { cron: '0 0 0 * * *' };
    }
  }
  return {
    problem: 'must divide the minute, hour or day evenly (e.g. 15s, 30s, 1m, 5m, 1h); use `cron` for anything else',
  };
}

/** Validates a cron expression; returns a one-line problem or undefined. */
export function cronProblem(expression: string): string | undefined {
  const detailed = cron.validateDetailed(expression);
  if (detailed.valid) return undefined;
  const first = detailed.errors[0];
  return first ? `invalid cron expression: ${first.field}: ${first.message}` : 'invalid cron expression';
}

/** Resolves a (valid) cron expression into a ScheduleSpec. */
export function describeCron(expression: string, source: 'interval' | 'cron', timezone: string): ScheduleSpec {
  const fields = cron.parse(expression);
  const perMatchingDay = fields.second.length * fields.minute.length * fields.hour.length;
  const matchingDays = countMatchingDays(fields);
  const task = cron.createTask(expression, () => undefined, { timezone });
  let minGapMs = Number.POSITIVE_INFINITY;
  try {
    const runs = task.getNextRuns(50);
    for (let i = 1; i < runs.length; i++) {
      minGapMs = Math.min(minGapMs, (runs[i] as Date).getTime() - (runs[i - 1] as Date).getTime());
    }
  } finally {
    void task.destroy();
  }
  if (!Number.isFinite(minGapMs)) minGapMs = 86_400_000;
  return { cron: expression, source, minGapMs, runsPerDay: (perMatchingDay * matchingDays) / 366 };
}

/** Days (of the next 366, UTC) on which the day/month fields match. */
function countMatchingDays(fields: ParsedFields): number {
  const start = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  let count = 0;
  for (let d = 0; d < 366; d++) {
    const day = new Date(start + d * 86_400_000);
    if (!fields.month.includes(day.getUTCMonth() + 1)) continue;
    if (!fields.dayOfMonth.includes(day.getUTCDate())) continue;
    if (!fields.dayOfWeek.includes(day.getUTCDay())) continue;
    count++;
  }
  return count;
}

/**
 * The stable jitter offset of one target, in [0, jitterMs): a hash of its name, so a
 * restart keeps the same spread and one target's probes stay exactly one interval apart.
 */
export function jitterOffset(name: string, jitterMs: number): number {
  if (jitterMs <= 0) return 0;
  // FNV-1a: cheap, well spread over short strings, no dependency.
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return Math.floor((h / 0x1_0000_0000) * jitterMs);
}

/** The default jitter window: half the shortest gap, at most a minute. */
export function defaultJitterMs(minGapMs: number): number {
  return Math.min(Math.floor(minGapMs / 2), 60_000);
}
