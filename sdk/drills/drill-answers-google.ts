/**
 * Drill answers for Google's GenerateContent families (`generate`, `embed`: the Gemini API
 * and Vertex AI), in the wire shape `@google/genai` and `@ai-sdk/google` read: a 429
 * `RESOURCE_EXHAUSTED` with a per-minute `QuotaFailure` and a `RetryInfo` delay, a 401
 * `UNAUTHENTICATED`, and an answer cut by its token limit — `finishReason: "MAX_TOKENS"` as
 * JSON, or as the stream (SSE; the JSON-array stream when the request did not ask for
 * `alt=sse`). `drill-answers.ts` hands these families here.
 */
const TEXT_WORDS = ['This', ' answer', ' was', ' cut', ' short', ' by', ' a', ' breakerbox'];

/** Whether `family` is one of Google's (its drills answer in Google's shapes). */
export function isGoogleFamily(family: string): boolean {
  return family === 'generate' || family === 'embed';
}

function json(status: number, body: unknown, drillId: string, contentType = 'application/json; charset=UTF-8'): Response {
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': contentType, 'x-breakerbox-drill': drillId } });
}

/** A 429 RESOURCE_EXHAUSTED asking to wait `retryAfterS` seconds (Google sends it in the body, not a header). */
export function googleRateLimitAnswer(drillId: string, retryAfterS: number): Response {
  return json(429, {
    error: {
      code: 429,
      message: 'You exceeded your current quota, please check your plan and billing details. (breakerbox drill)',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'GenerateRequestsPerMinutePerProjectPerModel' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterS}s` },
      ],
    },
  }, drillId);
}

/** A 401 for a key taken out of scope. */
export function googleAuthRevokedAnswer(drillId: string): Response {
  return json(401, { error: { code: 401, message: 'Request had invalid authentication credentials. (breakerbox drill)', status: 'UNAUTHENTICATED' } }, drillId);
}

/** A `MAX_TOKENS` answer (undefined for `embed`, which has no token limit); `sse` for a stream asked with `alt=sse`. */
export function googleTruncatedAnswer(family: string, drillId: string, stream: boolean, sse: boolean): Response | undefined {
  if (family !== 'generate') return undefined;
  const out = TEXT_WORDS.length;
  const usage = (n: number) => ({ promptTokenCount: 1, candidatesTokenCount: n, totalTokenCount: n + 1 });
  const chunk = (i: number) => ({
    candidates: [{ content: { parts: [{ text: TEXT_WORDS[i] }], role: 'model' }, ...(i === out - 1 ? { finishReason: 'MAX_TOKENS' } : {}), index: 0 }],
    usageMetadata: usage(i + 1),
    modelVersion: 'breakerbox-drill',
  });
  if (!stream) {
    return json(200, { candidates: [{ content: { parts: [{ text: TEXT_WORDS.join('') }], role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 }], usageMetadata: usage(out), modelVersion: 'breakerbox-drill' }, drillId);
  }
  const chunks = TEXT_WORDS.map((_w, i) => JSON.stringify(chunk(i)));
  return sse
    ? json(200, chunks.map((c) => `data: ${c}\r\n\r\n`).join(''), drillId, 'text/event-stream')
    : json(200, `[${chunks.join(',\r\n')}]`, drillId);
}
