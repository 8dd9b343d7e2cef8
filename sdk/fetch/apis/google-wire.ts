/**
 * What the Gemini API (`gemini.ts`) and Vertex AI (`vertex.ts`) share: Google's
 * GenerateContent wire. The methods a path names and their endpoint families —
 * `generate` (`:generateContent`, `:streamGenerateContent`) and `embed` (`:embedContent`,
 * `:batchEmbedContents`) — the stream framings (SSE with `alt=sse`, else a JSON array), the
 * stream dialect, what a JSON answer says (usage from `usageMetadata`, the finish, the
 * served `modelVersion`), which 200 answers are failures (no candidate and no block reason;
 * embeddings without one whole vector per input), the cost estimate's output limit
 * (`generationConfig.maxOutputTokens`), and how a fallback renames the model inside the body
 * (`model: "models/…"` of an embeddings request).
 */
import { BreakerboxError, SDK_ERROR_CODES } from '../../errors/catalog.ts';
import type { CallFacts } from '../../call-types.ts';
import { geminiDialect, geminiFinish, geminiUsage } from '../../streams/dialect-gemini.ts';
import { jsonArrayFraming } from '../../streams/json-array-framing.ts';
import { isEventStreamType, sseFraming, type StreamFraming } from '../../streams/stream-framing.ts';
import type { StreamDialect } from '../../streams/stream-dialect.ts';
import type { ModelApi } from './model-api.ts';

/** A path's method (after the `:`) and its endpoint family. */
export const GOOGLE_METHODS: Readonly<Record<string, 'generate' | 'embed'>> = {
  generateContent: 'generate',
  streamGenerateContent: 'generate',
  embedContent: 'embed',
  batchEmbedContents: 'embed',
};

/** The method part of a regex: one of `GOOGLE_METHODS`. */
export const METHOD_PATTERN = Object.keys(GOOGLE_METHODS).join('|');

/** The dialect of both families (embeddings are never streamed). */
export function googleDialect(_family: string): StreamDialect {
  return geminiDialect;
}

/** SSE (`alt=sse`) or, for `application/json`, the JSON-array stream. */
export function googleStreamFraming(contentType: string | null): StreamFraming | undefined {
  if (isEventStreamType(contentType)) return sseFraming;
  return (contentType ?? '').includes('application/json') ? jsonArrayFraming : undefined;
}

/** Usage, finish reason and served model of a GenerateContent (or embeddings) JSON answer. */
export function googleJsonFacts(body: unknown, upstreamRequestId: string | undefined): CallFacts {
  const f: CallFacts = { upstreamRequestId };
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const u = geminiUsage(b);
  if (u.input !== undefined) f.inputTokens = u.input;
  if (u.output !== undefined) f.outputTokens = u.output;
  if (u.cached !== undefined) f.cacheHit = u.cached > 0;
  if (u.reasoning !== undefined) f.reasoningTokens = u.reasoning;
  const finish = geminiFinish(b);
  if (finish) f.finishReason = finish;
  if (typeof b.modelVersion === 'string' && b.modelVersion) f.modelServed = b.modelVersion;
  return f;
}

/** How many inputs an embeddings request embeds (`:embedContent` one, `:batchEmbedContents` its requests). */
function embedInputs(req: Record<string, unknown>): number | undefined {
  if (Array.isArray(req.requests)) return req.requests.length;
  return req.content !== undefined ? 1 : undefined;
}

/** Why a Google embeddings answer is not one. */
function embedProblem(b: Record<string, unknown>, req: Record<string, unknown>): string | undefined {
  const single = b.embedding as { values?: unknown } | undefined;
  const vectors = Array.isArray(b.embeddings) ? (b.embeddings as Array<{ values?: unknown } | null>) : single ? [single] : undefined;
  if (!vectors) return 'embeddings answer has no embedding';
  const wanted = embedInputs(req);
  if (wanted !== undefined && vectors.length !== wanted) return `embeddings answer has ${vectors.length} vector${vectors.length === 1 ? '' : 's'} for ${wanted} input${wanted === 1 ? '' : 's'}`;
  const lengths = vectors.map((v) => (Array.isArray(v?.values) ? v.values.length : 0));
  if (lengths.some((n) => n === 0)) return 'embeddings answer has a missing or empty vector';
  const first = Array.isArray(req.requests) ? (req.requests[0] as Record<string, unknown> | undefined) : req;
  const dims = typeof first?.outputDimensionality === 'number' ? first.outputDimensionality : lengths[0]!;
  if (lengths.some((n) => n !== dims)) return `embeddings answer has vectors of unequal or unexpected dimension (${[...new Set(lengths)].join(', ')})`;
  return undefined;
}

/** The provider failure a 200 JSON answer hides, or undefined when it is an answer (truncation and refusals are classified from the finish). */
export function googleJsonFailure(family: string, body: unknown, req: Record<string, unknown>, upstreamRequestId: string | undefined): BreakerboxError | undefined {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const fail = (problem: string) => new BreakerboxError(SDK_ERROR_CODES.PROVIDER_ERROR, problem, { errorClass: 'server', providerReason: 'malformed_answer', upstreamRequestId });
  if (family === 'embed') {
    const problem = embedProblem(b, req);
    return problem ? fail(problem) : undefined;
  }
  if (Array.isArray(body)) return undefined; // a JSON-array stream read whole: its chunks were checked as a stream
  if (geminiFinish(b) === undefined && !(Array.isArray(b.candidates) && b.candidates.length > 0)) return fail('generateContent answer has no candidate and no block reason');
  return undefined;
}

/** The output token limit of a GenerateContent request. */
export function googleMaxOutputTokens(body: Record<string, unknown>): number | undefined {
  const v = (body.generationConfig as { maxOutputTokens?: unknown } | undefined)?.maxOutputTokens;
  return typeof v === 'number' ? v : undefined;
}

/**
 * `body` with the model an embeddings request names inside it (`model: "models/x"`, each of
 * `requests[].model`) renamed `model`; the body itself when it names none.
 */
export function withBodyModel(body: Record<string, unknown>, model: string): Record<string, unknown> {
  const rename = (v: unknown) => (typeof v === 'string' ? v.replace(/[^/]+$/, model) : v);
  let out = body;
  if (typeof body.model === 'string') out = { ...out, model: rename(body.model) };
  if (Array.isArray(body.requests) && body.requests.some((r) => typeof (r as { model?: unknown } | null)?.model === 'string')) {
    out = { ...out, requests: body.requests.map((r) => (r && typeof r === 'object' && typeof (r as { model?: unknown }).model === 'string' ? { ...r, model: rename((r as { model: string }).model) } : r)) };
  }
  return out;
}

/** What the Gemini API and Vertex AI share of a `ModelApi`: their answers, streams and errors are one wire format. */
export const GOOGLE_WIRE: Pick<ModelApi, 'dialect' | 'streamFraming' | 'jsonFacts' | 'jsonFailure' | 'maxOutputTokens'> = {
  dialect: googleDialect,
  streamFraming: googleStreamFraming,
  jsonFacts: googleJsonFacts,
  jsonFailure: googleJsonFailure,
  maxOutputTokens: googleMaxOutputTokens,
};
