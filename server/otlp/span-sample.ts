/**
 * A failed GenAI span as an evidence sample (issue 27; docs/otlp.md, "Traces"): what a
 * provider's support asks for, read from what the span already carries — the provider's
 * request id (an `http.response.header.*` attribute of a request-id header, else
 * `gen_ai.response.id`), the HTTP status, the served model, and the exception message
 * (else the span's status message), redacted like the SDK's. Never prompt or completion text.
 */
import { MAX_SAMPLE_MESSAGE_CHARS, MAX_LATENCY_MS, UPSTREAM_REQUEST_ID_HEADERS, redactText, type CallSample, type ErrorClass } from '@breakerbox/protocol';
import type { Attributes, Span } from './model.ts';

/** Samples one tally (service, instance, key) keeps at most: the latest, well inside a window's byte cap. */
export const SPAN_SAMPLES = 5;

const str = (a: Attributes, name: string): string | undefined => {
  const v = a[name];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};

/** The provider's request id: a request-id response header recorded on the span, else the response id. */
function requestIdOf(a: Attributes): string | undefined {
  for (const h of UPSTREAM_REQUEST_ID_HEADERS) {
    const v = str(a, `http.response.header.${h}`);
    if (v) return v;
  }
  return str(a, 'gen_ai.response.id');
}

/** The sample of a failed span classed `cls`; `status` is the span's HTTP status when it has one. */
export function spanSample(span: Span, cls: ErrorClass, status: number | undefined, tokens: { input?: number; output?: number }): CallSample {
  const a = span.attributes;
  const sample: CallSample = {
    ts: Math.floor(span.endNanos / 1e6),
    outcome: 'error',
    error_class: cls,
    attempt: 1,
    duration_ms: Math.min(MAX_LATENCY_MS, Math.max(0, Math.round((span.endNanos - span.startNanos) / 1e6))),
  };
  if (status !== undefined && Number.isInteger(status) && status >= 100 && status <= 599) sample.status = status;
  const id = requestIdOf(a);
  if (id) sample.upstream_request_id = id.slice(0, 200);
  const served = str(a, 'gen_ai.response.model');
  if (served) sample.model_served = served.slice(0, 300);
  const exception = [...span.events].reverse().find((e) => e.name === 'exception');
  const raw = (typeof exception?.attributes['exception.message'] === 'string' ? exception.attributes['exception.message'] : '') || span.statusMessage;
  const message = raw ? redactText(raw, MAX_SAMPLE_MESSAGE_CHARS) : '';
  if (message) sample.message = message;
  if (tokens.input !== undefined && Number.isInteger(tokens.input)) sample.input_tokens = tokens.input;
  if (tokens.output !== undefined && Number.isInteger(tokens.output)) sample.output_tokens = tokens.output;
  return sample;
}

/** Keeps the latest `SPAN_SAMPLES` of `samples`, oldest first. */
export function latestSamples(samples: CallSample[]): CallSample[] {
  return samples.length <= SPAN_SAMPLES ? samples : [...samples].sort((x, y) => x.ts - y.ts).slice(-SPAN_SAMPLES);
}
