/**
 * What a non-streamed answer (a 200 with a JSON body) says, per endpoint family: its usage
 * and finish reason for telemetry and cost, and whether it is really an answer. A chat or
 * messages answer that stopped on its limit, a Responses answer whose `status` is
 * `incomplete`, is not a success (`truncated` / `policy`); a Responses answer with
 * `status: "failed"` and an embeddings answer without one whole vector per input are
 * provider failures, retried and failed over like an error status.
 */
import type { ErrorClass } from '@breakerbox/protocol';
import { classifyFinishReason } from '@breakerbox/protocol';
import type { CallFacts } from '../call-types.ts';
import { BreakerboxError, SDK_ERROR_CODES } from '../errors/catalog.ts';
import { responseFailure, responseFinish } from '../streams/dialect-responses.ts';

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** Usage, finish reason and cache use of a JSON answer (chat, messages, Responses, embeddings). */
export function jsonFacts(body: unknown, upstreamRequestId: string | undefined): CallFacts {
  const f: CallFacts = { upstreamRequestId };
  const b = (body ?? {}) as Record<string, unknown>;
  const u = (b.usage ?? {}) as Record<string, unknown>;
  f.inputTokens = num(u.prompt_tokens) ?? num(u.input_tokens);
  f.outputTokens = num(u.completion_tokens) ?? num(u.output_tokens);
  const cached = num((u.prompt_tokens_details as Record<string, unknown> | undefined)?.cached_tokens) ?? num((u.input_tokens_details as Record<string, unknown> | undefined)?.cached_tokens) ?? num(u.cache_read_input_tokens);
  if (cached !== undefined) f.cacheHit = cached > 0;
  const reasoning = num((u.completion_tokens_details as Record<string, unknown> | undefined)?.reasoning_tokens) ?? num((u.output_tokens_details as Record<string, unknown> | undefined)?.reasoning_tokens);
  if (reasoning !== undefined) f.reasoningTokens = reasoning;
  const choice = Array.isArray(b.choices) ? (b.choices[0] as { finish_reason?: unknown } | undefined) : undefined;
  const finish = choice?.finish_reason ?? b.stop_reason ?? (b.object === 'response' ? responseFinish(b) : undefined);
  if (typeof finish === 'string') f.finishReason = finish;
  if (typeof b.model === 'string' && b.model) f.modelServed = b.model;
  return f;
}

/** The outcome class of a JSON answer's finish (null: a success). */
export function jsonAnswerClass(facts: CallFacts): ErrorClass | null {
  return classifyFinishReason(facts.finishReason) ?? null;
}

/** How many inputs an embeddings request embeds. */
function embeddingInputs(req: Record<string, unknown>): number | undefined {
  const input = req.input;
  if (typeof input === 'string') return 1;
  if (!Array.isArray(input)) return undefined;
  return input.length > 0 && typeof input[0] === 'number' ? 1 : input.length;
}

/** Length of one vector: floats, or base64 of float32 (the official client's default). */
function vectorLength(v: unknown): number | undefined {
  if (Array.isArray(v)) return v.length;
  if (typeof v === 'string') return Math.floor((v.replace(/=+$/, '').length * 3) / 4 / 4);
  return undefined;
}

/** Why an embeddings answer is not one: missing vectors, the wrong count, empty or unequal vectors. */
function embeddingsProblem(body: Record<string, unknown>, req: Record<string, unknown>): string | undefined {
  const data = body.data;
  if (!Array.isArray(data)) return 'embeddings answer has no data';
  const wanted = embeddingInputs(req);
  if (wanted !== undefined && data.length !== wanted) return `embeddings answer has ${data.length} vector${data.length === 1 ? '' : 's'} for ${wanted} input${wanted === 1 ? '' : 's'}`;
  const lengths = data.map((d) => vectorLength((d as { embedding?: unknown } | null)?.embedding));
  if (lengths.some((n) => n === undefined || n === 0)) return 'embeddings answer has a missing or empty vector';
  const dims = typeof req.dimensions === 'number' ? req.dimensions : lengths[0]!;
  if (lengths.some((n) => n !== dims)) return `embeddings answer has vectors of unequal or unexpected dimension (${[...new Set(lengths)].join(', ')})`;
  return undefined;
}

/** The provider failure a 200 JSON answer hides, or undefined when it is an answer. */
export function jsonAnswerFailure(family: string, body: unknown, req: Record<string, unknown>, upstreamRequestId: string | undefined): BreakerboxError | undefined {
  const b = (body ?? {}) as Record<string, unknown>;
  if (family === 'responses' && b.status === 'failed') {
    const f = responseFailure(b);
    return new BreakerboxError(SDK_ERROR_CODES.PROVIDER_ERROR, `response failed: ${f.message}`, { errorClass: f.cls, providerReason: 'failed', upstreamRequestId });
  }
  if (family === 'embeddings') {
    const problem = embeddingsProblem(b, req);
    if (problem) return new BreakerboxError(SDK_ERROR_CODES.PROVIDER_ERROR, problem, { errorClass: 'server', providerReason: 'malformed_answer', upstreamRequestId });
  }
  return undefined;
}
