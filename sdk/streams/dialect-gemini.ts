/**
 * The stream dialect of Google's GenerateContent (the Gemini API and Vertex AI, the same
 * wire): every event is a whole `GenerateContentResponse` — `candidates[0].content.parts`
 * (text, `thought` summaries, `functionCall`), `usageMetadata` (cumulative, in every chunk),
 * `promptFeedback.blockReason` for a refused prompt — and the stream has no end event: the
 * chunk carrying `candidates[0].finishReason` is the last, then the body ends. The guard
 * completes on that finish when the body ends (or `endGraceMs` after it).
 *
 * Finish reasons are classified by protocol's `classifyFinishReason` (`MAX_TOKENS` →
 * truncated, `SAFETY` / `RECITATION` / `PROHIBITED_CONTENT` / `BLOCKLIST` / `SPII` → policy);
 * a `blockReason` is reported as the finish. Errors mid-stream arrive as `{"error":{code,
 * message,status}}` chunks and are classified by the shared taxonomy.
 *
 * For rescue: text parts are text; a chunk with a function call, executable code, inline
 * data or a second candidate is opaque; `thought` parts are reasoning the caller keeps
 * (each summary part is whole in its chunk, so none is left open).
 */
import type { SseEvent } from '@breakerbox/protocol';
import { classifyFinishReason } from '@breakerbox/protocol';
import { HEAD, MALFORMED, OPAQUE, TAIL, errorOf, jsonOf, type FrameInfo, type FrameText, type StreamDialect } from './stream-dialect.ts';

type Part = Record<string, unknown>;
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** The first candidate of a GenerateContentResponse, if any. */
function firstCandidate(o: Record<string, unknown>): Record<string, unknown> | undefined {
  return Array.isArray(o.candidates) ? (o.candidates[0] as Record<string, unknown> | undefined) : undefined;
}

function partsOf(c: Record<string, unknown> | undefined): Part[] {
  const parts = (c?.content as { parts?: unknown } | undefined)?.parts;
  return Array.isArray(parts) ? (parts as Part[]) : [];
}

/**
 * The finish of a GenerateContentResponse: the first candidate's `finishReason`, else the
 * prompt's `blockReason` (a refused prompt has no candidates). A block reason the taxonomy
 * does not name (`OTHER`) is still a refusal: reported as `content_filter`.
 */
export function geminiFinish(o: Record<string, unknown>): string | undefined {
  const finish = firstCandidate(o)?.finishReason;
  if (typeof finish === 'string' && finish !== 'FINISH_REASON_UNSPECIFIED') return finish;
  const block = (o.promptFeedback as { blockReason?: unknown } | undefined)?.blockReason;
  if (typeof block === 'string' && block !== 'BLOCKED_REASON_UNSPECIFIED') return classifyFinishReason(block) ? block : 'content_filter';
  return undefined;
}

/** Usage of a GenerateContentResponse's `usageMetadata`: output counts the thinking tokens too. */
export function geminiUsage(o: Record<string, unknown>): { input?: number; output?: number; cached?: number; reasoning?: number } {
  const u = o.usageMetadata as Record<string, unknown> | undefined;
  if (!u || typeof u !== 'object') return {};
  const candidates = num(u.candidatesTokenCount);
  const thoughts = num(u.thoughtsTokenCount);
  return {
    input: num(u.promptTokenCount),
    output: candidates === undefined && thoughts === undefined ? undefined : (candidates ?? 0) + (thoughts ?? 0),
    cached: num(u.cachedContentTokenCount),
    reasoning: thoughts,
  };
}

function interpret(e: SseEvent): FrameInfo {
  const o = jsonOf(e);
  if (!o || Array.isArray(o)) return MALFORMED;
  if (o.error) return { malformed: false, token: false, end: false, error: errorOf(o) };
  const info: FrameInfo = { malformed: false, token: false, end: false };
  const parts = partsOf(firstCandidate(o));
  if (parts.some((p) => (typeof p.text === 'string' && p.text.length > 0) || p.functionCall || p.executableCode || p.inlineData)) info.token = true;
  const finish = geminiFinish(o);
  if (finish) info.finishReason = finish;
  const u = geminiUsage(o);
  if (u.input !== undefined) info.inputTokens = u.input;
  if (u.output !== undefined) info.outputTokens = u.output;
  if (u.cached !== undefined) info.cachedTokens = u.cached;
  if (u.reasoning !== undefined) info.reasoningTokens = u.reasoning;
  return info;
}

function text(e: SseEvent): FrameText {
  const o = jsonOf(e);
  if (!o || o.error) return OPAQUE;
  if ((o.promptFeedback as { blockReason?: unknown } | undefined)?.blockReason) return OPAQUE;
  const candidates = o.candidates;
  if (!Array.isArray(candidates) || candidates.length === 0) return TAIL; // a usage-only chunk
  if (candidates.length > 1) return OPAQUE;
  const c = candidates[0] as Record<string, unknown>;
  let t = '';
  let thought = false;
  for (const p of partsOf(c)) {
    if (p.thought === true) thought = true;
    else if (typeof p.text === 'string') t += p.text;
    else return OPAQUE; // functionCall, executableCode, inlineData, …
  }
  const final = typeof c.finishReason === 'string';
  if (t) return final ? { kind: 'text', text: t, final: true } : { kind: 'text', text: t };
  if (thought) return { kind: 'aside', open: false };
  return final ? TAIL : HEAD;
}

/** Google GenerateContent streams (`:streamGenerateContent`, SSE or JSON array). */
export const geminiDialect: StreamDialect = {
  family: 'generate',
  endEvent: 'a chunk with finishReason',
  interpret,
  textReader: () => text,
  withText(e, t) {
    const o = JSON.parse(e.data) as { candidates: Array<{ content: { parts: Part[] } }> };
    const content = o.candidates[0]!.content;
    // The answer's text in one part, in place of the chunk's text parts; thought parts kept.
    const kept = content.parts.filter((p) => p.thought === true);
    content.parts = [...kept, { text: t }];
    return { event: e.event, data: JSON.stringify(o) };
  },
  // usageMetadata rides on every chunk, the last one with the finish.
  usageBeforeEnd: () => true,
};
