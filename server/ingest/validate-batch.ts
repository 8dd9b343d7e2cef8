import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import type { CallSample, TelemetryBatch, Histogram } from '@breakerbox/protocol';
import { BreakerboxError } from '../errors.ts';
import { BatchEnvelopeSchema, ERROR_CLASSES, EVENT_SCHEMAS, MAX_WINDOW_SAMPLES_BYTES } from '@breakerbox/protocol';
import { checkInvariants } from './invariants.ts';

const envelope = TypeCompiler.Compile(BatchEnvelopeSchema);
const checks: Record<string, TypeCheck<TSchema>> = Object.fromEntries(
  Object.entries(EVENT_SCHEMAS).map(([type, schema]) => [type, TypeCompiler.Compile(schema)]),
);

/** The time window an event's timestamps must fall in. */
export interface TimeBounds {
  /** Oldest acceptable time (now minus raw retention). */
  oldest: number;
  /** Newest acceptable time (now plus the allowed clock skew). */
  newest: number;
}

function invalid(path: string, message: string): never {
  throw new BreakerboxError('BB_ERR_INGEST_INVALID', message, { path });
}

function checkHistogram(h: Histogram, path: string): void {
  if (h.counts.length !== h.bounds.length + 1) {
    invalid(`${path}/counts`, `counts must have one more entry than bounds (${h.bounds.length + 1}), got ${h.counts.length}`);
  }
  for (let i = 1; i < h.bounds.length; i++) {
    if (h.bounds[i]! <= h.bounds[i - 1]!) invalid(`${path}/bounds/${i}`, 'bounds must be strictly increasing');
  }
}

function checkTime(value: number, path: string, bounds: TimeBounds): void {
  if (value > bounds.newest) invalid(path, `timestamp ${value} is more than the allowed skew in the future (check the sender's clock)`);
  if (value < bounds.oldest) invalid(path, `timestamp ${value} is older than the raw retention and would be pruned at once`);
}

/**
 * An upper bound of the samples' JSON size without serialising them: 6 bytes per UTF-16 unit
 * of a name or string (a `\\u00XX` escape at worst), 24 per number (`-1.2345678901234567e-308`),
 * punctuation; Infinity for a nested value (unknown fields may hold anything).
 */
function samplesBytesBound(samples: readonly CallSample[]): number {
  let n = 2;
  for (const s of samples) {
    n += 3;
    // for…in, not Object.entries: this runs for every sample of every batch, and entries allocates.
    for (const k in s) {
      const v = (s as unknown as Record<string, unknown>)[k];
      n += 6 * k.length + 4;
      if (typeof v === 'string') n += 6 * v.length + 2;
      else if (typeof v === 'number' || typeof v === 'boolean') n += 24;
      else return Infinity;
    }
  }
  return n;
}

function checkSamples(samples: readonly CallSample[], path: string, bounds: TimeBounds): void {
  // The exact size only when the cheap bound says it could be over: most windows' samples are far below.
  if (samplesBytesBound(samples) > MAX_WINDOW_SAMPLES_BYTES) {
    const bytes = Buffer.byteLength(JSON.stringify(samples));
    if (bytes > MAX_WINDOW_SAMPLES_BYTES) invalid(path, `samples take ${bytes} bytes of JSON, more than the ${MAX_WINDOW_SAMPLES_BYTES} allowed per window`);
  }
  for (let i = 0; i < samples.length; i++) checkTime(samples[i]!.ts, `${path}/${i}/ts`, bounds);
}

/**
 * Validates a parsed body against protocol v1 (schema, then the cross-field invariants)
 * and returns it typed. Throws a 400 BreakerboxError naming the first bad field as a JSON
 * pointer (`/events/3/calls`).
 */
export function validateBatch(body: unknown, bounds: TimeBounds): TelemetryBatch {
  if (!envelope.Check(body)) {
    const first = envelope.Errors(body).First();
    invalid(first?.path || '/', first?.message ?? 'invalid batch');
  }
  const batch = body as TelemetryBatch;
  // Passthrough counts may travel alone (an application whose every request passes unprotected).
  if (batch.events.length === 0 && !batch.passthrough) invalid('/events', 'must NOT have fewer than 1 items (or carry passthrough counts)');
  if (batch.events.length === 0 && batch.drill_id !== undefined) invalid('/events', 'a drill batch must carry events');
  for (let i = 0; i < batch.events.length; i++) {
    const event = batch.events[i]!;
    const path = `/events/${i}`;
    const check = checks[event.type];
    if (!check) invalid(`${path}/type`, `unknown event type "${event.type}" (allowed: ${Object.keys(checks).join(', ')})`);
    if (!check.Check(event)) {
      const first = check.Errors(event).First();
      const unknownClass = /^\/errors\/([^/]+)$/.exec(first?.path ?? '');
      const message = unknownClass && first?.message === 'Unexpected property'
        ? `unknown error class "${unknownClass[1]}" (allowed: ${ERROR_CLASSES.join(', ')})`
        : first?.message ?? 'invalid event';
      invalid(`${path}${first?.path ?? ''}`, message);
    }
    switch (event.type) {
      case 'window':
      case 'tasks':
      case 'shadow':
        if (event.end < event.start) invalid(`${path}/end`, 'end must not be before start');
        checkTime(event.start, `${path}/start`, bounds);
        checkTime(event.end, `${path}/end`, bounds);
        if (event.type === 'window') {
          checkHistogram(event.latency_ms, `${path}/latency_ms`);
          if (event.ttft_ms) checkHistogram(event.ttft_ms, `${path}/ttft_ms`);
          if (event.samples) checkSamples(event.samples, `${path}/samples`, bounds);
        }
        if (event.type === 'shadow') {
          for (const side of ['primary', 'shadow'] as const) {
            checkHistogram(event[side].latency_ms, `${path}/${side}/latency_ms`);
            if (event[side].ttft_ms) checkHistogram(event[side].ttft_ms!, `${path}/${side}/ttft_ms`);
          }
        }
        break;
      default:
        checkTime(event.ts, `${path}/ts`, bounds);
    }
    const violation = checkInvariants(event);
    if (violation) invalid(`${path}${violation.path}`, violation.message);
  }
  return batch;
}
