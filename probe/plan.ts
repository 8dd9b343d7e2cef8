/**
 * The plan `--check` prints: every target with its schedule, limits and an estimated
 * daily cost (runs per day × expected tokens × price; output tokens counted at
 * `max_tokens`, so the estimate is an upper bound).
 */
import { adapterFor } from './adapters/index.ts';
import type { ProberConfig, TargetConfig } from './config-types.ts';
import { formatDuration } from './duration.ts';
import { canaryInputTokens, describeCanary } from './canary-config.ts';
import type { Usage } from './adapters/types.ts';

/** One row of the plan. */
export interface PlanRow {
  name: string;
  kind: string;
  key: string;
  location: string;
  schedule: string;
  jitter: string;
  stream: boolean;
  ceilingMs: number;
  timeouts: string;
  runsPerDay: number;
  /** Estimated USD per day; undefined when the target has no price. */
  costPerDay: number | undefined;
  /** What the target's canary expects (issue 39); undefined without one. */
  canary: string | undefined;
}

/** The whole plan. */
export interface Plan {
  rows: PlanRow[];
  totalCostPerDay: number;
  unpriced: number;
  /** Probe on suspicion: the most on-demand probes per hour and their worst-case daily cost (the dearest target's probe each time). */
  onDemand: { enabled: boolean; maxPerHour: number; maxCostPerDay: number | undefined };
}

/** USD of one probe of a target (no warm-up), or undefined without a price. */
function perProbeCost(t: TargetConfig): number | undefined {
  const adapter = adapterFor(t.kind);
  if (!t.price || !adapter) return undefined;
  const tokens = tokensOf(t);
  return (tokens.inputTokens * t.price.inputPerMtok + tokens.outputTokens * t.price.outputPerMtok) / 1e6;
}

function keyText(t: TargetConfig): string {
  return `${t.key.provider}/${t.key.endpoint}/${t.key.model}${t.key.region ? ` @${t.key.region}` : ''}`;
}

function scheduleText(t: TargetConfig): string {
  return t.schedule.source === 'interval' ? `every ${formatDuration(t.schedule.minGapMs)}` : `cron "${t.schedule.cron}"`;
}

/** Tokens of one probe: the kind's estimate plus the schema or tool a canary sends along. */
function tokensOf(t: TargetConfig): Usage {
  const base = adapterFor(t.kind)!.estimateTokens(t.request);
  return t.canary ? { ...base, inputTokens: base.inputTokens + canaryInputTokens(t.canary) } : base;
}

/** Estimated USD per day of one target. */
export function estimateDailyCost(t: TargetConfig): number | undefined {
  const adapter = adapterFor(t.kind);
  if (!t.price || !adapter) return undefined;
  const tokens = tokensOf(t);
  const perProbe = (tokens.inputTokens * t.price.inputPerMtok + tokens.outputTokens * t.price.outputPerMtok) / 1e6;
  // A warm-up shorter than the gap between runs precedes every probe.
  const warmups = t.warmupAfterIdleMs !== undefined && t.warmupAfterIdleMs <= t.schedule.minGapMs ? 2 : 1;
  return perProbe * warmups * t.schedule.runsPerDay;
}

/** Builds the plan of a validated config. */
export function buildPlan(config: ProberConfig): Plan {
  const rows = config.targets.map((t): PlanRow => ({
    name: t.name,
    kind: t.kind,
    key: keyText(t),
    location: t.location,
    schedule: scheduleText(t),
    jitter: formatDuration(t.jitterMs),
    stream: t.streamed,
    ceilingMs: t.latencyCeilingMs,
    timeouts: `${formatDuration(t.timeouts.connectMs)}/${formatDuration(t.timeouts.firstByteMs)}/${formatDuration(t.timeouts.totalMs)}`,
    runsPerDay: t.schedule.runsPerDay,
    costPerDay: estimateDailyCost(t),
    canary: t.canary ? describeCanary(t.canary) : undefined,
  }));
  const prices = config.targets.map(perProbeCost).filter((c): c is number => c !== undefined);
  const od = config.onDemand;
  return {
    rows,
    totalCostPerDay: rows.reduce((sum, r) => sum + (r.costPerDay ?? 0), 0),
    unpriced: rows.filter((r) => r.costPerDay === undefined).length,
    onDemand: { enabled: od.enabled, maxPerHour: od.maxPerHour, maxCostPerDay: prices.length ? Math.max(...prices) * od.maxPerHour * 24 : undefined },
  };
}

function usd(v: number): string {
  return v >= 1 ? `$${v.toFixed(2)}` : `$${v.toFixed(4)}`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Formats the plan for a terminal; `warnings` are listed after it. */
export function formatPlan(config: ProberConfig, plan: Plan, warnings: readonly string[] = []): string {
  const header = ['TARGET', 'KIND', 'KEY', 'LOCATION', 'SCHEDULE', 'JITTER', 'STREAM', 'CEILING', 'TIMEOUTS c/fb/total', 'RUNS/DAY', 'EST/DAY'];
  const rows = plan.rows.map((r) => [
    r.name, r.kind, r.key, r.location, r.schedule, r.jitter, r.stream ? 'yes' : 'no', `${r.ceilingMs}ms`, r.timeouts,
    String(Math.round(r.runsPerDay)), r.costPerDay === undefined ? 'no price' : usd(r.costPerDay),
  ]);
  const cap = config.dailyCostCapUsd;
  const out = [
    `breakerbox probe: plan for location "${config.location}" (cron time zone ${config.timezone})`,
    `${plan.rows.length} target(s), at most ${config.maxConcurrent} probes at once, daily cost cap ${cap === undefined ? 'none' : usd(cap)}`,
    '',
    table(header, rows),
    '',
    `estimated daily cost: at most ${usd(plan.totalCostPerDay)}${plan.unpriced ? ` (${plan.unpriced} target(s) without a price not counted)` : ''}`,
  ];
  const canaries = plan.rows.filter((r) => r.canary !== undefined);
  out.push(
    canaries.length
      ? `answer canaries (a miss is a wrong_answer probe): ${canaries.map((r) => `${r.name} expects ${r.canary}`).join('; ')}`
      : 'answer canaries: none (probes check that an answer arrived, not what it says)',
  );
  const od = plan.onDemand;
  out.push(
    od.enabled
      ? `on-demand probes (probe on suspicion, asked by the collector): at most ${od.maxPerHour} per hour from this location` +
          `${od.maxCostPerDay !== undefined ? `, at most ${usd(od.maxCostPerDay)} per day if every one is used` : ''}; counted in the daily cost cap`
      : 'on-demand probes (probe on suspicion): off',
  );
  if (cap !== undefined && plan.totalCostPerDay > cap) {
    out.push(`note: the estimate exceeds the daily cap; probing would pause each day once ${usd(cap)} is spent`);
  }
  if (warnings.length > 0) out.push('', 'warnings:', ...warnings.map((w) => `  ${w}`));
  out.push('', 'config OK: nothing was sent.');
  return out.join('\n');
}
