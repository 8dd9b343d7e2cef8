/**
 * GenAI client spans → per-key tallies, one per resource (service, instance) × key: calls,
 * ok, failures by class, latency from the span's duration, TTFT where a first-token event
 * or attribute exists, tokens and cost from usage attributes. Tallies carry fractional
 * weights (a span sampled at 1/4 stands for 4 calls) and become `window` events only when
 * written (`SpanTally.toWindow`). The mapping is in docs/otlp.md ("Traces").
 */
import { DEFAULT_LATENCY_BOUNDS_MS, keyId, type BreakerKey, type CallSample, type ErrorClass, type TelemetryBatch, type WindowEvent } from '@breakerbox/protocol';
import type { TimeBounds } from '../ingest/validate-batch.ts';
import { classifySpanError, UNCLASSIFIED } from './error-type.ts';
import { keyInterner, sourceFrom } from './key-mapping.ts';
import type { Attributes, ResourceSpans, Span } from './model.ts';
import { Rejections } from './rejections.ts';
import { ModelCallParents } from './model-call-parents.ts';
import type { SpanHandover } from './span-handover.ts';
import { samplingWeight } from './sampling.ts';
import { latestSamples, spanSample } from './span-sample.ts';

/** What the spans of one resource and key add up to (weights, not yet rounded). */
export interface SpanTally {
  source: TelemetryBatch['source'];
  key: BreakerKey;
  startMs: number;
  endMs: number;
  spans: number;
  calls: number;
  ok: number;
  errors: Partial<Record<ErrorClass, number>>;
  latency: number[];
  ttft: number[] | undefined;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** True when any span of the tally was sampled at a probability below 1. */
  sampled: boolean;
  /** The latest failed spans as evidence samples (at most `SPAN_SAMPLES`). */
  samples: CallSample[];
}

/** What one traces request becomes. */
export interface MappedSpans {
  /** Tallies by `tallyId(service, instance, key)`. */
  tallies: Map<string, SpanTally>;
  rejected: Rejections;
  /** Spans per key id (what refusing that key refuses). */
  spansPerKey: Map<string, number>;
}

/** The id of a tally: one per service, instance and key. */
export const tallyId = (source: TelemetryBatch['source'], key: BreakerKey): string => `${source.service}\u0000${source.instance}\u0000${keyId(key)}`;

const BOUNDS = DEFAULT_LATENCY_BOUNDS_MS;
const bucketOf = (ms: number): number => {
  for (let i = 0; i < BOUNDS.length; i++) if (ms <= BOUNDS[i]!) return i;
  return BOUNDS.length;
};

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined);
const first = (attrs: Attributes, names: readonly string[]): number | undefined => {
  for (const n of names) {
    const v = num(attrs[n]);
    if (v !== undefined) return v;
  }
  return undefined;
};

const INPUT_TOKENS = ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt'] as const;
const OUTPUT_TOKENS = ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion'] as const;
const COST = ['gen_ai.usage.cost', 'llm.cost.total'] as const;
/** Attributes that carry TTFT in seconds. */
const TTFT_SECONDS = ['gen_ai.response.time_to_first_chunk', 'gen_ai.response.time_to_first_token'] as const;
/** Events whose time marks the first token of a streamed answer. */
const FIRST_TOKEN_EVENTS: ReadonlySet<string> = new Set(['First Token Stream Event', 'gen_ai.first_token', 'gen_ai.content.chunk']);

/**
 * `gen_ai.operation.name` values that are one model call (OpenTelemetry GenAI conventions:
 * chat, text_completion, generate_content, embeddings; rerank, as the AI SDK names its
 * rerank model calls). Agent, step, tool and workflow operations (`invoke_agent`,
 * `create_agent`, `agent_step`, `execute_tool`, `decide`, …) are not, whatever else they carry.
 */
const MODEL_OPERATIONS: ReadonlySet<string> = new Set(['chat', 'text_completion', 'generate_content', 'embeddings', 'rerank']);

/** The AI SDK's older (`ai.*`) spans: only the provider call (`….doGenerate`, `….doStream`, `….doEmbed`) is a model call. */
const AI_SDK_MODEL_CALL = /\.do(Generate|Stream|Embed)$/;

/**
 * True for a span that is one model call: a model-call `gen_ai.operation.name`, or, without
 * one, a requested model (`gen_ai.request.model`, as LiteLLM's callback and older OpenLLMetry
 * spans carry) or an OpenInference LLM / EMBEDDING span; never a server span, never an agent,
 * step, tool or workflow span. Anything else is skipped unread, not refused.
 */
export function isModelCall(span: Span): boolean {
  if (span.kind === 2) return false; // SERVER: a model server's own span, not a client call
  const a = span.attributes;
  const aiSdk = a['ai.operationId'];
  if (typeof aiSdk === 'string' && !AI_SDK_MODEL_CALL.test(aiSdk)) return false;
  const op = a['gen_ai.operation.name'];
  if (op !== undefined) return typeof op === 'string' && MODEL_OPERATIONS.has(op.toLowerCase());
  const kind = a['openinference.span.kind'];
  if (kind !== undefined) return kind === 'LLM' || kind === 'EMBEDDING';
  return a['gen_ai.request.model'] !== undefined || a['llm.request.type'] !== undefined;
}

function ttftMs(span: Span): number | undefined {
  const seconds = first(span.attributes, TTFT_SECONDS);
  if (seconds !== undefined) return seconds * 1000;
  for (const e of span.events) if (FIRST_TOKEN_EVENTS.has(e.name) && e.timeNanos >= span.startNanos) return (e.timeNanos - span.startNanos) / 1e6;
  return undefined;
}

function classOf(span: Span): ErrorClass {
  const a = span.attributes;
  const exception = [...span.events].reverse().find((e) => e.name === 'exception');
  const cls = classifySpanError({
    errorType: typeof a['error.type'] === 'string' ? a['error.type'] : undefined,
    exceptionType: typeof exception?.attributes['exception.type'] === 'string' ? exception.attributes['exception.type'] : undefined,
    exceptionMessage: typeof exception?.attributes['exception.message'] === 'string' ? exception.attributes['exception.message'] : undefined,
    statusMessage: span.statusMessage,
    httpStatus: num(a['http.response.status_code']) ?? num(a['http.status_code']),
  });
  return cls ?? UNCLASSIFIED;
}

function newTally(source: TelemetryBatch['source'], key: BreakerKey, startMs: number, endMs: number): SpanTally {
  return {
    source, key, startMs, endMs, spans: 0, calls: 0, ok: 0, errors: {}, latency: new Array<number>(BOUNDS.length + 1).fill(0),
    ttft: undefined, inputTokens: 0, outputTokens: 0, costUsd: 0, sampled: false, samples: [],
  };
}

/** Adds `from` into `into` (same source and key). */
export function mergeTally(into: SpanTally, from: SpanTally): void {
  into.startMs = Math.min(into.startMs, from.startMs);
  into.endMs = Math.max(into.endMs, from.endMs);
  into.spans += from.spans;
  into.calls += from.calls;
  into.ok += from.ok;
  for (const [cls, n] of Object.entries(from.errors) as Array<[ErrorClass, number]>) into.errors[cls] = (into.errors[cls] ?? 0) + n;
  from.latency.forEach((n, i) => (into.latency[i]! += n));
  if (from.ttft) {
    into.ttft ??= new Array<number>(BOUNDS.length + 1).fill(0);
    from.ttft.forEach((n, i) => (into.ttft![i]! += n));
  }
  into.inputTokens += from.inputTokens;
  into.outputTokens += from.outputTokens;
  into.costUsd += from.costUsd;
  into.sampled ||= from.sampled;
  if (from.samples.length > 0) into.samples = latestSamples([...into.samples, ...from.samples]);
}

/**
 * A tally as a protocol v1 `window`: weighted counts rounded, failures by class rounded so
 * that `ok` + failures = `calls`. The source's `sdk` says the figures came from spans, and
 * from sampled spans when they did (docs/otlp.md, "Sampling").
 */
export function toWindow(t: SpanTally): { source: TelemetryBatch['source']; window: WindowEvent } {
  const calls = Math.round(t.calls);
  const errors: Partial<Record<ErrorClass, number>> = {};
  let failed = 0;
  for (const [cls, n] of Object.entries(t.errors) as Array<[ErrorClass, number]>) {
    const r = Math.min(Math.round(n), calls - failed);
    if (r > 0) (errors[cls] = r), (failed += r);
  }
  const round = (counts: number[]) => counts.map((n) => Math.round(n));
  const window: WindowEvent = {
    type: 'window', start: t.startMs, end: Math.max(t.endMs, t.startMs), key: t.key, calls, ok: calls - failed, slow: 0, errors,
    rejected: 0, short_circuited: 0, retries: 0, cold_excluded: 0, half_open: { ok: 0, failed: 0 },
    latency_ms: { bounds: BOUNDS as number[], counts: round(t.latency) },
    input_tokens: Math.round(t.inputTokens), output_tokens: Math.round(t.outputTokens), cost_usd: t.costUsd,
  };
  if (t.ttft) window.ttft_ms = { bounds: BOUNDS as number[], counts: round(t.ttft) };
  if (t.samples.length > 0) window.samples = [...t.samples].sort((x, y) => x.ts - y.ts);
  const sdk = `${t.source.sdk ?? 'otel'} spans${t.sampled ? ' sampled' : ''}`.slice(0, 200);
  return { source: { ...t.source, sdk }, window };
}

/**
 * Maps decoded resources to tallies. Spans that are not model calls are skipped unread, and
 * so is a model-call span wrapping a model-call span of the same key (the inner one is the
 * request sent; `parents` remembers children across exports), and a call the same service's
 * metrics already counted (`handover`); model calls without a key or outside `bounds` are
 * refused and counted.
 */
export function spansToTallies(resources: ResourceSpans[], bounds: TimeBounds, parents: ModelCallParents = new ModelCallParents(), handover?: SpanHandover): MappedSpans {
  const rejected = new Rejections();
  const keyOf = keyInterner();
  const tallies = new Map<string, SpanTally>();
  const spansPerKey = new Map<string, number>();
  // Every model call's parent first, so a parent in the same export as its child is known.
  const calls: Array<{ rs: ResourceSpans; span: Span; key: BreakerKey | string }> = [];
  for (const rs of resources) {
    for (const span of rs.spans) {
      if (!isModelCall(span)) continue;
      const key = keyOf(span.attributes);
      if (typeof key !== 'string') parents.add(span.traceId, span.parentSpanId, keyId(key));
      calls.push({ rs, span, key });
    }
  }
  let source: TelemetryBatch['source'] | undefined;
  let sourceOf: ResourceSpans | undefined;
  for (const { rs, span, key } of calls) {
    if (sourceOf !== rs) {
      sourceOf = rs;
      source = sourceFrom(rs.resource);
    }
    if (typeof key === 'string') {
      rejected.add(`model-call spans with ${key} (gen_ai.provider.name / llm.provider, gen_ai.operation.name, gen_ai.request.model / llm.model_name)`);
      continue;
    }
    if (parents.wraps(span.traceId, span.spanId, keyId(key))) continue;
    const startMs = Math.floor(span.startNanos / 1e6);
    const endMs = Math.floor(span.endNanos / 1e6);
    if (endMs > bounds.newest || startMs < bounds.oldest || span.endNanos < span.startNanos) {
      rejected.add('spans whose time is outside the accepted span (raw retention back, max_future_ms ahead)');
      continue;
    }
    const id = tallyId(source!, key);
    if (handover?.covered(id, endMs)) continue;
    const weight = samplingWeight(span.traceState);
    let t = tallies.get(id);
    if (!t) tallies.set(id, (t = newTally(source!, key, startMs, endMs)));
    t.startMs = Math.min(t.startMs, startMs);
    t.endMs = Math.max(t.endMs, endMs);
    t.spans += 1;
    t.calls += weight;
    if (weight !== 1) t.sampled = true;
    if (span.statusCode === 2 || (span.attributes['error.type'] !== undefined && span.attributes['error.type'] !== '')) {
      const cls = classOf(span);
      t.errors[cls] = (t.errors[cls] ?? 0) + weight;
      const status = num(span.attributes['http.response.status_code']) ?? num(span.attributes['http.status_code']);
      const tokens = { input: first(span.attributes, INPUT_TOKENS), output: first(span.attributes, OUTPUT_TOKENS) };
      t.samples = latestSamples([...t.samples, spanSample(span, cls, status, tokens)]);
      handover?.counted(id, endMs, weight, cls);
    } else {
      t.ok += weight;
      handover?.counted(id, endMs, weight, null);
    }
    t.latency[bucketOf((span.endNanos - span.startNanos) / 1e6)]! += weight;
    const ttft = ttftMs(span);
    if (ttft !== undefined) {
      t.ttft ??= new Array<number>(BOUNDS.length + 1).fill(0);
      t.ttft[bucketOf(ttft)]! += weight;
    }
    t.inputTokens += (first(span.attributes, INPUT_TOKENS) ?? 0) * weight;
    t.outputTokens += (first(span.attributes, OUTPUT_TOKENS) ?? 0) * weight;
    t.costUsd += (first(span.attributes, COST) ?? 0) * weight;
    const kid = keyId(key);
    spansPerKey.set(kid, (spansPerKey.get(kid) ?? 0) + 1);
  }
  return { tallies, rejected, spansPerKey };
}
