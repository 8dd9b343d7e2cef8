/**
 * Validation of one entry of `targets`: every problem is reported with the target's
 * name and the field, and nothing of a literal credential is ever echoed back.
 */
import type { BreakerKey } from '@breakerbox/protocol';
import { adapterFor, ADAPTERS } from './adapters/index.ts';
import { FieldReader, isRecord, show, type ReportProblem } from './config-fields.ts';
import type { Price, ProbeTimeouts, TargetConfig } from './config-types.ts';
import { readCanary } from './canary-config.ts';
import { cronProblem, defaultJitterMs, describeCron, intervalToCron, jitterOffset, type ScheduleSpec } from './schedule-spec.ts';

/** Target-level defaults from the file's `defaults` block, already validated. */
export interface TargetDefaults {
  interval: number | undefined;
  cron: string | undefined;
  jitterMs: number | undefined;
  latencyCeilingMs: number | undefined;
  timeouts: ProbeTimeouts;
  warmupAfterIdleMs: number | undefined;
}

export const TARGET_FIELDS = [
  'name', 'key', 'kind', 'base_url', 'api_key_env', 'request', 'interval', 'cron', 'jitter',
  'latency_ceiling_ms', 'timeouts', 'location', 'price', 'warmup', 'canary',
] as const;
const CREDENTIAL_FIELDS = /^(api_?key|apikey|secret|token|password|authorization|bearer)$/i;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Prefixes of real provider keys: such a value in `api_key_env` is a key, not a name. */
const KEY_PREFIX = /^(sk-|sk_|sk-ant-|gsk_|xai-|key-|AIza|pk_|rk_|hf_|r8_|nvapi-|pplx-)/;
export const LOCATION_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const CREDENTIAL_QUERY = /^(key|api_?key|token|access_token|sig|signature)$/i;

/** Reads `timeouts` over `base`; checks that connect and first byte fit in total. */
export function readTimeouts(r: FieldReader | undefined, base: ProbeTimeouts): ProbeTimeouts {
  if (!r) return base;
  r.rejectUnknown(['connect_ms', 'first_byte_ms', 'total_ms']);
  const t: ProbeTimeouts = {
    connectMs: r.duration('connect_ms', { min: 1, max: 600_000 }) ?? base.connectMs,
    firstByteMs: r.duration('first_byte_ms', { min: 1, max: 600_000 }) ?? base.firstByteMs,
    totalMs: r.duration('total_ms', { min: 1, max: 600_000 }) ?? base.totalMs,
  };
  if (t.connectMs > t.totalMs) r.problem('connect_ms', `is ${t.connectMs} ms, more than total_ms (${t.totalMs} ms)`);
  if (t.firstByteMs > t.totalMs) r.problem('first_byte_ms', `is ${t.firstByteMs} ms, more than total_ms (${t.totalMs} ms)`);
  return t;
}

function readKey(r: FieldReader): BreakerKey | undefined {
  const k = r.object('key', { required: true });
  if (!k) return undefined;
  k.rejectUnknown(['provider', 'endpoint', 'model', 'region']);
  const provider = k.string('provider', { required: true, maxLength: 128 });
  const endpoint = k.string('endpoint', { required: true, maxLength: 128 });
  const model = k.string('model', { required: true, maxLength: 256 });
  const region = k.string('region', { maxLength: 128 });
  if (!provider || !endpoint || !model) return undefined;
  return region === undefined ? { provider, endpoint, model } : { provider, endpoint, model, region };
}

function readApiKeyEnv(r: FieldReader, required: boolean): string | undefined {
  const value = r.obj.api_key_env;
  if (value === undefined || value === null) {
    if (required) r.problem('api_key_env', 'is required (the NAME of the environment variable holding the API key)');
    return undefined;
  }
  // The value may be a pasted key: never echo it.
  if (typeof value !== 'string' || KEY_PREFIX.test(value) || (value.length >= 24 && /[a-z]/.test(value) && /\d/.test(value) && !value.includes('_'))) {
    r.problem('api_key_env', 'looks like a literal API key; keys in the file are refused: put the key in an environment variable and give its NAME here (e.g. OPENAI_API_KEY)');
    return undefined;
  }
  if (!ENV_NAME.test(value)) {
    r.problem('api_key_env', 'must be the NAME of an environment variable (letters, digits, underscores), e.g. OPENAI_API_KEY');
    return undefined;
  }
  return value;
}

function readBaseUrl(r: FieldReader): URL | undefined {
  const raw = r.string('base_url', { required: true });
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    r.problem('base_url', 'must be an absolute http(s) URL');
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') r.problem('base_url', 'must use http or https');
  else if (url.username || url.password) r.problem('base_url', 'credentials in the URL are refused; use api_key_env');
  else if ([...url.searchParams.keys()].some((k) => CREDENTIAL_QUERY.test(k))) {
    r.problem('base_url', 'a credential in the query string is refused; use api_key_env');
  } else return url;
  return undefined;
}

function readSchedule(r: FieldReader, d: TargetDefaults, timezone: string): ScheduleSpec | undefined {
  const interval = r.duration('interval');
  const cronExpr = r.string('cron');
  if (interval !== undefined && cronExpr !== undefined) {
    r.problem('cron', 'give either interval or cron, not both');
    return undefined;
  }
  const useCron = cronExpr ?? (interval === undefined ? d.cron : undefined);
  if (useCron !== undefined) {
    const problem = cronProblem(useCron);
    if (problem) {
      r.problem('cron', problem);
      return undefined;
    }
    return describeCron(useCron, 'cron', timezone);
  }
  const ms = interval ?? d.interval ?? 60_000;
  const converted = intervalToCron(ms);
  if ('problem' in converted) {
    r.problem('interval', converted.problem);
    return undefined;
  }
  return { cron: converted.cron, source: 'interval', minGapMs: ms, runsPerDay: 86_400_000 / ms };
}

function readPrice(r: FieldReader): Price | undefined {
  const p = r.object('price');
  if (!p) return undefined;
  p.rejectUnknown(['input_per_mtok', 'output_per_mtok']);
  const input = p.number('input_per_mtok', { required: true, min: 0, max: 10_000 });
  const output = p.number('output_per_mtok', { required: true, min: 0, max: 10_000 });
  return input === undefined || output === undefined ? undefined : { inputPerMtok: input, outputPerMtok: output };
}

/** Builds the name used in messages before the target's own name is known. */
export function targetLabel(raw: unknown, index: number): string {
  const name = isRecord(raw) && typeof raw.name === 'string' ? raw.name : undefined;
  return name ? `target "${name}" (targets[${index}])` : `targets[${index}]`;
}

/**
 * Validates one target. Returns undefined when it has problems (all of them reported).
 */
export function readTarget(
  raw: unknown,
  index: number,
  ctx: { defaults: TargetDefaults; location: string | undefined; timezone: string; report: ReportProblem },
): TargetConfig | undefined {
  let bad = false;
  const label = targetLabel(raw, index);
  const report: ReportProblem = (field, message) => {
    bad = true;
    ctx.report(`${label}: ${field}`, message);
  };
  if (!isRecord(raw)) {
    report('(target)', `must be an object, got ${show(raw)}`);
    return undefined;
  }
  const r = new FieldReader(raw, '', report);
  for (const name of Object.keys(raw)) {
    if (CREDENTIAL_FIELDS.test(name)) r.problem(name, 'a literal credential in the file is refused; use api_key_env (the NAME of an environment variable)');
  }
  r.rejectUnknown([...TARGET_FIELDS, ...Object.keys(raw).filter((n) => CREDENTIAL_FIELDS.test(n))]);
  const key = readKey(r);
  const kind = r.string('kind', { required: true });
  const adapter = kind === undefined ? undefined : adapterFor(kind);
  if (kind !== undefined && !adapter) r.problem('kind', `unknown kind ${show(kind)} (known: ${Object.keys(ADAPTERS).join(', ')})`);
  const baseUrl = readBaseUrl(r);
  const apiKeyEnv = readApiKeyEnv(r, adapter?.requiresApiKey ?? true);
  const reqReader = r.object('request') ?? new FieldReader({}, 'request', report);
  // Read the request even when the key is wrong, so its problems show in the same run.
  const request = adapter ? adapter.parseRequest(reqReader, { key: key ?? { provider: '', endpoint: '', model: '' } }) : undefined;
  const urlProblem = baseUrl && request !== undefined ? adapter?.baseUrlProblem?.(baseUrl, request) : undefined;
  if (urlProblem) r.problem('base_url', urlProblem);
  const schedule = readSchedule(r, ctx.defaults, ctx.timezone);
  const latencyCeilingMs = r.number('latency_ceiling_ms', { integer: true, min: 1, max: 600_000 }) ?? ctx.defaults.latencyCeilingMs;
  if (latencyCeilingMs === undefined) r.problem('latency_ceiling_ms', 'is required (here or in defaults): what a caller can wait for, in ms');
  const timeouts = readTimeouts(r.object('timeouts'), ctx.defaults.timeouts);
  const location = r.string('location', { pattern: LOCATION_RE, hint: 'must be 1-64 letters, digits, ".", "_" or "-"' }) ?? ctx.location;
  const price = readPrice(r);
  const warmup = r.object('warmup');
  warmup?.rejectUnknown(['after_idle']);
  const warmupAfterIdleMs = warmup ? warmup.duration('after_idle', { required: true, min: 1_000 }) : ctx.defaults.warmupAfterIdleMs;
  const canary = readCanary(r);
  if (canary && adapter && !adapter.readAnswer) {
    const able = Object.values(ADAPTERS).filter((a) => a.readAnswer).map((a) => a.kind);
    r.problem('canary', `kind ${kind} does not check answers (canaries work on ${able.join(', ')})`);
  } else if (canary && adapter && request !== undefined && adapter.streamed(request)) {
    r.problem('canary', 'needs a non-streamed request (request.stream: false): the answer is judged whole');
  }
  let jitterMs = r.duration('jitter') ?? ctx.defaults.jitterMs;
  if (schedule && jitterMs !== undefined && jitterMs >= schedule.minGapMs) {
    r.problem('jitter', `must be shorter than the time between runs (${schedule.minGapMs} ms)`);
  }
  if (schedule && jitterMs === undefined) jitterMs = defaultJitterMs(schedule.minGapMs);
  if (bad || !key || !kind || !adapter || !baseUrl || request === undefined || !schedule || !location || latencyCeilingMs === undefined) {
    return undefined;
  }
  const name =
    (typeof raw.name === 'string' && raw.name) ||
    `${key.provider}/${key.endpoint}/${key.model}${key.region ? `@${key.region}` : ''}${raw.location ? `#${location}` : ''}`;
  const jitter = jitterMs ?? 0;
  return {
    name,
    index,
    key,
    kind,
    baseUrl,
    apiKeyEnv,
    request,
    streamed: adapter.streamed(request),
    schedule,
    jitterMs: jitter,
    // The prober's location is always in the hash, not only in a name that carries it: probers
    // sharing one config file from different locations then probe a target at different
    // moments, so their probes are independent samples in time (issue 41).
    jitterOffsetMs: jitterOffset(`${name}\u0000${location}`, jitter),
    latencyCeilingMs,
    timeouts,
    location,
    price,
    warmupAfterIdleMs,
    canary,
  };
}
