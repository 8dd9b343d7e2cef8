/**
 * Google GenerateContent bodies of the fake provider (the Gemini API and Vertex AI share
 * them), as `@google/genai`'s `GenerateContentResponse` and `@ai-sdk/google`'s response and
 * chunk schemas read them: `candidates[0].content.parts` (`text`, `functionCall`),
 * `finishReason` (`STOP`, `MAX_TOKENS`, `SAFETY`), `safetyRatings`, `usageMetadata`
 * (`promptTokenCount`, `candidatesTokenCount`, `thoughtsTokenCount`, `totalTokenCount`),
 * `promptFeedback.blockReason`, `modelVersion`, `responseId`; embeddings as
 * `{embedding:{values}}` / `{embeddings:[{values}]}`; errors as
 * `{"error":{"code","message","status","details"}}`.
 */
import { randomBytes } from 'node:crypto';
import { tokenText, toolInput } from './fake-provider-bodies.ts';
import type { BadEmbeddings } from './fake-provider-embeddings.ts';

/** What one GenerateContent answer holds. */
export interface GoogleShape {
  model: string;
  responseId: string;
  /** Words of text (or pieces of a function call's arguments). */
  tokens: number;
  shift: number;
  promptTokens: number;
  thoughtsTokens: number;
  /** `STOP`, `MAX_TOKENS`, `SAFETY`, or undefined for a prompt blocked before any candidate. */
  finish: string | undefined;
  /** `promptFeedback.blockReason` of a refused prompt. */
  blockReason?: string;
  output: 'text' | 'tool_call';
  toolName: string;
  /** A fault's verbatim text and tool arguments (JSON text). */
  text?: string;
  args?: string;
}

/** A `responseId` as Google's (base64url-ish, 22–28 characters). */
export function newGoogleResponseId(): string {
  return randomBytes(18).toString('base64url');
}

const SAFETY_RATINGS = [
  { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
  { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'NEGLIGIBLE' },
];

function usage(a: GoogleShape, candidates: number): Record<string, unknown> {
  const u: Record<string, unknown> = { promptTokenCount: a.promptTokens };
  if (candidates > 0) u.candidatesTokenCount = candidates;
  u.totalTokenCount = a.promptTokens + candidates + a.thoughtsTokens;
  u.promptTokensDetails = [{ modality: 'TEXT', tokenCount: a.promptTokens }];
  if (a.thoughtsTokens > 0) u.thoughtsTokenCount = a.thoughtsTokens;
  return u;
}

/** Text of words `from` to `to` (exclusive). */
function words(a: GoogleShape, from: number, to: number): string {
  let t = '';
  for (let i = from; i < to; i++) t += tokenText(i + a.shift);
  return t;
}

function parts(a: GoogleShape, from: number, to: number): Array<Record<string, unknown>> {
  if (to <= from) return [];
  const args = a.args !== undefined ? toolInput(a.args) : { query: words(a, 0, a.tokens), limit: a.tokens };
  if (a.output === 'tool_call') return from === 0 ? [{ functionCall: { name: a.toolName, args } }] : [];
  return [{ text: a.text !== undefined && from === 0 ? a.text : words(a, from, to) }];
}

function candidate(a: GoogleShape, p: Array<Record<string, unknown>>, final: boolean): Record<string, unknown> {
  const c: Record<string, unknown> = { content: p.length > 0 ? { parts: p, role: 'model' } : { role: 'model' } };
  if (final && a.finish) {
    c.finishReason = a.finish;
    if (a.finish === 'SAFETY') c.safetyRatings = SAFETY_RATINGS;
  }
  c.index = 0;
  return c;
}

/** The whole answer (`:generateContent`). */
export function generateJson(a: GoogleShape): Record<string, unknown> {
  if (a.blockReason) return { promptFeedback: { blockReason: a.blockReason, safetyRatings: SAFETY_RATINGS }, usageMetadata: usage(a, 0), modelVersion: a.model, responseId: a.responseId };
  return { candidates: [candidate(a, parts(a, 0, a.tokens), true)], usageMetadata: usage(a, a.tokens), modelVersion: a.model, responseId: a.responseId };
}

/**
 * Chunk `i` of a streamed answer: word `i`; the last word's chunk carries the finish and
 * the final usage (as the real API's last chunk does). A function call comes whole in the
 * first chunk.
 */
export function streamChunk(a: GoogleShape, i: number): Record<string, unknown> {
  const last = i === a.tokens - 1;
  const p = a.output === 'tool_call' ? parts(a, i, i + 1).slice(0, i === 0 ? 1 : 0) : parts(a, i, i + 1);
  return { candidates: [candidate(a, p, last)], usageMetadata: usage(a, i + 1), modelVersion: a.model, responseId: a.responseId };
}

/** The chunk that ends an answer with no words (all spent thinking, or a refused prompt). */
export function emptyFinalChunk(a: GoogleShape): Record<string, unknown> {
  return a.blockReason ? generateJson(a) : { candidates: [candidate(a, [], true)], usageMetadata: usage(a, 0), modelVersion: a.model, responseId: a.responseId };
}

const DIMENSIONS: Record<string, number> = { 'gemini-embedding-001': 3072, 'text-embedding-004': 768, 'text-embedding-005': 768 };

function vector(seed: number, dims: number): number[] {
  const v: number[] = [];
  for (let k = 0; k < dims; k++) v.push(Math.round(Math.sin(seed * 31 + k) * 1e4) / 1e5);
  return v;
}

/** An `:embedContent` or `:batchEmbedContents` answer for `body`, spoiled by `bad` when set. */
export function embedJson(model: string, body: Record<string, unknown>, batch: boolean, dimensions: number | undefined, bad?: BadEmbeddings): Record<string, unknown> {
  const reqs = batch ? (Array.isArray(body.requests) ? (body.requests as Array<Record<string, unknown>>) : []) : [body];
  const asked = reqs[0]?.outputDimensionality;
  const dims = dimensions ?? (typeof asked === 'number' ? asked : (DIMENSIONS[model] ?? 768));
  let vectors = reqs.map((_r, i) => ({ values: vector(i + 1, dims) }));
  if (bad === 'missing') return batch ? {} : {};
  if (bad === 'count') vectors = vectors.length > 1 ? vectors.slice(1) : [...vectors, { values: vector(9, dims) }];
  if (bad === 'dimension' && vectors[0]) vectors[0] = { values: vector(1, Math.max(1, Math.floor(dims / 2))) };
  if (bad === 'empty') vectors = vectors.map(() => ({ values: [] }));
  if (bad === 'zeros' && vectors[0]) vectors[0] = { values: new Array<number>(dims).fill(0) };
  return batch ? { embeddings: vectors } : { embedding: vectors[0] ?? { values: [] } };
}

/** Google's canonical status of an HTTP status, and the message the real API sends with it. */
const GOOGLE_ERRORS: Record<number, { status: string; message: string }> = {
  400: { status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' },
  401: { status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.' },
  403: { status: 'PERMISSION_DENIED', message: 'Permission denied: Consumer has been suspended.' },
  404: { status: 'NOT_FOUND', message: 'Requested entity was not found.' },
  429: { status: 'RESOURCE_EXHAUSTED', message: 'Resource has been exhausted (e.g. check quota).' },
  500: { status: 'INTERNAL', message: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting' },
  503: { status: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.' },
  504: { status: 'DEADLINE_EXCEEDED', message: 'Deadline expired before operation could complete.' },
};

/** The `{"error":…}` envelope of a Google error; `status`, `message`, `details` override the defaults. */
export function googleError(code: number, over: { status?: string; message?: string; details?: unknown[] } = {}): Record<string, unknown> {
  const d = GOOGLE_ERRORS[code] ?? GOOGLE_ERRORS[code >= 500 ? 500 : 400]!;
  const error: Record<string, unknown> = { code, message: over.message ?? d.message, status: over.status ?? d.status };
  if (over.details) error.details = over.details;
  return { error };
}

/** A 429 of the Gemini API: a per-minute limit (`rate`, with `RetryInfo` when `retrySeconds` is set) or a per-day quota. */
export function resourceExhausted(kind: 'rate' | 'quota', model: string, retrySeconds?: number): Record<string, unknown> {
  const window = kind === 'rate' ? 'PerMinute' : 'PerDay';
  const details: unknown[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: `GenerateRequests${window}PerProjectPerModel-FreeTier`, quotaDimensions: { location: 'global', model }, quotaValue: kind === 'rate' ? '10' : '250' }],
    },
    { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
  ];
  if (retrySeconds !== undefined) details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retrySeconds}s` });
  return googleError(429, {
    message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
    details,
  });
}
