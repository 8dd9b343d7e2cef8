/**
 * Validation of the whole prober file. Collects every problem (one line each, naming
 * the target and the field) instead of stopping at the first, so one run of `--check`
 * shows everything to fix.
 */
import { FieldReader, isRecord, show } from './config-fields.ts';
import type { CollectorConfig, OnDemandConfig, ProberConfig, TargetConfig } from './config-types.ts';
import { LOCATION_RE, readTarget, readTimeouts, type TargetDefaults } from './config-target.ts';
import { cronProblem, intervalToCron } from './schedule-spec.ts';

/** Defaults applied when neither the target nor `defaults` says otherwise. */
export const BUILTIN_DEFAULTS = {
  timeouts: { connectMs: 5_000, firstByteMs: 15_000, totalMs: 30_000 },
  maxConcurrent: 32,
  timezone: 'UTC',
  collector: { tokenEnv: 'BREAKERBOX_TOKEN', batchSize: 500, flushIntervalMs: 5_000, bufferCap: 10_000, gzip: true },
  onDemand: { enabled: true, maxPerHour: 60 },
} as const;

const TOP_FIELDS = ['location', 'timezone', 'max_concurrent', 'daily_cost_cap_usd', 'collector', 'on_demand', 'defaults', 'targets'];

/** The result of validation: a config when there is no problem. */
export interface ValidationResult {
  config: ProberConfig | undefined;
  problems: string[];
}

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function readCollector(r: FieldReader | undefined): CollectorConfig {
  const d = BUILTIN_DEFAULTS.collector;
  if (!r) return { url: undefined, ...d };
  r.rejectUnknown(['url', 'token_env', 'batch_size', 'flush_interval', 'buffer_cap', 'gzip']);
  const url = r.string('url', { pattern: /^https?:\/\/[^\s/@]+(\/\S*)?$/, hint: 'must be an http(s) URL without credentials' });
  const tokenEnv = r.string('token_env', { pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, hint: 'must be the NAME of an environment variable' });
  const batchSize = r.number('batch_size', { integer: true, min: 1, max: 5_000 }) ?? d.batchSize;
  const bufferCap = r.number('buffer_cap', { integer: true, min: 1, max: 1_000_000 }) ?? d.bufferCap;
  if (bufferCap < batchSize) r.problem('buffer_cap', `must be at least batch_size (${batchSize})`);
  return {
    url,
    tokenEnv: tokenEnv ?? d.tokenEnv,
    batchSize,
    flushIntervalMs: r.duration('flush_interval', { min: 100, max: 600_000 }) ?? d.flushIntervalMs,
    bufferCap,
    gzip: r.boolean('gzip') ?? d.gzip,
  };
}

function readOnDemand(r: FieldReader | undefined): OnDemandConfig {
  const d = BUILTIN_DEFAULTS.onDemand;
  if (!r) return { ...d };
  r.rejectUnknown(['enabled', 'max_per_hour']);
  return { enabled: r.boolean('enabled') ?? d.enabled, maxPerHour: r.number('max_per_hour', { integer: true, min: 1, max: 100_000 }) ?? d.maxPerHour };
}

function readDefaults(r: FieldReader | undefined): TargetDefaults {
  const base: TargetDefaults = {
    interval: undefined,
    cron: undefined,
    jitterMs: undefined,
    latencyCeilingMs: undefined,
    timeouts: { ...BUILTIN_DEFAULTS.timeouts },
    warmupAfterIdleMs: undefined,
  };
  if (!r) return base;
  r.rejectUnknown(['interval', 'cron', 'jitter', 'latency_ceiling_ms', 'timeouts', 'warmup']);
  const cron = r.string('cron');
  if (cron !== undefined && cronProblem(cron)) r.problem('cron', cronProblem(cron) as string);
  const warmup = r.object('warmup');
  warmup?.rejectUnknown(['after_idle']);
  let interval = r.duration('interval', { min: 1_000 });
  const converted = interval === undefined ? undefined : intervalToCron(interval);
  if (converted && 'problem' in converted) {
    r.problem('interval', converted.problem);
    interval = undefined;
  }
  return {
    interval,
    cron: cron !== undefined && !cronProblem(cron) ? cron : undefined,
    jitterMs: r.duration('jitter'),
    latencyCeilingMs: r.number('latency_ceiling_ms', { integer: true, min: 1, max: 600_000 }),
    timeouts: readTimeouts(r.object('timeouts'), base.timeouts),
    warmupAfterIdleMs: warmup?.duration('after_idle', { required: true, min: 1_000 }),
  };
}

/**
 * Validates a parsed config file. `location` is the `--location` flag, which wins over
 * the file's `location`.
 */
export function validateConfig(raw: unknown, opts: { location?: string | undefined } = {}): ValidationResult {
  const problems: string[] = [];
  const report = (field: string, message: string): void => {
    problems.push(`${field}: ${message}`);
  };
  if (!isRecord(raw)) {
    report('(file)', `must be a mapping with a "targets" list, got ${show(raw)}`);
    return { config: undefined, problems };
  }
  const r = new FieldReader(raw, '', report);
  r.rejectUnknown(TOP_FIELDS);
  const fileLocation = r.string('location', { pattern: LOCATION_RE, hint: 'must be 1-64 letters, digits, ".", "_" or "-"' });
  let location = fileLocation;
  if (opts.location !== undefined) {
    if (LOCATION_RE.test(opts.location)) location = opts.location;
    else report('--location', 'must be 1-64 letters, digits, ".", "_" or "-"');
  }
  if (location === undefined && opts.location === undefined && !r.has('location')) {
    report('location', 'is required: give --location or set location in the file');
  }
  let timezone = r.string('timezone') ?? BUILTIN_DEFAULTS.timezone;
  if (!validTimezone(timezone)) {
    r.problem('timezone', `unknown time zone ${show(timezone)}`);
    timezone = BUILTIN_DEFAULTS.timezone;
  }
  const maxConcurrent = r.number('max_concurrent', { integer: true, min: 1, max: 10_000 }) ?? BUILTIN_DEFAULTS.maxConcurrent;
  const dailyCostCapUsd = r.number('daily_cost_cap_usd', { min: 0 });
  const collector = readCollector(r.object('collector'));
  const onDemand = readOnDemand(r.object('on_demand'));
  const defaults = readDefaults(r.object('defaults'));

  const targets: TargetConfig[] = [];
  const rawTargets = raw.targets;
  if (!Array.isArray(rawTargets) || rawTargets.length === 0) {
    report('targets', 'must be a non-empty list of targets');
  } else {
    rawTargets.forEach((t, i) => {
      const target = readTarget(t, i, { defaults, location, timezone, report });
      if (target) targets.push(target);
    });
  }
  checkUnique(targets, report);
  if (problems.length > 0 || location === undefined) return { config: undefined, problems };
  return { config: { location, timezone, maxConcurrent, dailyCostCapUsd, collector, onDemand, targets }, problems };
}

/** Two targets with one name, or one key probed twice from one location, would mix their results. */
function checkUnique(targets: TargetConfig[], report: (field: string, message: string) => void): void {
  const names = new Map<string, TargetConfig>();
  const keys = new Map<string, TargetConfig>();
  for (const t of targets) {
    const label = `target "${t.name}" (targets[${t.index}])`;
    const sameName = names.get(t.name);
    if (sameName) report(`${label}: name`, `duplicates the name of targets[${sameName.index}]`);
    else names.set(t.name, t);
    const keyId = JSON.stringify([t.key.provider, t.key.endpoint, t.key.model, t.key.region ?? null, t.location, t.streamed]);
    const sameKey = keys.get(keyId);
    if (sameKey) report(`${label}: key`, `same key, location and stream mode as targets[${sameKey.index}]`);
    else keys.set(keyId, t);
  }
}
