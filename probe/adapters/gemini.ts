/**
 * `gemini`: Google's GenerateContent — the Gemini API (`base_url` the host, as
 * `@google/genai`'s `baseUrl`: `https://generativelanguage.googleapis.com`; the kind adds
 * `/{api_version}/models/{model}:generateContent`) or, with `project` and `location`,
 * Vertex AI (`https://{location}-aiplatform.googleapis.com`, path
 * `/{api_version}/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:…`).
 * Streams ask for `alt=sse`. The credential, from `api_key_env`, goes in `x-goog-api-key`
 * (`auth: api_key`, the Gemini API's default and Vertex express mode) or as a bearer token
 * (`auth: bearer`, Vertex's default: an OAuth access token such as
 * `gcloud auth print-access-token` prints; it expires within the hour, so refresh the
 * variable or use a key).
 *
 * Thinking models: Gemini 2.5 and 3 think by default and their thinking counts against
 * `maxOutputTokens`, so a small budget would end `MAX_TOKENS` with no text. A probe of one
 * sends `thinkingConfig`: `thinkingBudget: 0` (off) for 2.5 Flash / Flash-Lite, the API's
 * minimum 128 for 2.5 Pro (which cannot turn it off) with room for the answer on top, and
 * `thinkingLevel: "low"` for Gemini 3; `thinking_budget` sets the budget itself.
 *
 * The first token is the first text (not a `thought` summary) or function call. A finish
 * of `MAX_TOKENS` is truncated; `SAFETY`, `RECITATION`, … and a prompt's `blockReason` are
 * policy (protocol's `classifyFinishReason`); an `{"error":…}` chunk is classified by its
 * status.
 */
import { classifyErrorBody, classifyFinishReason, type SseEvent } from '@breakerbox/protocol';
import type { FieldReader } from '../config-fields.ts';
import { count, estimateChatTokens, isObject, malformed, parseChatRequest, tryJson, type ChatRequest } from './chat-request.ts';
import type { Answer, Served, OutgoingRequest, ParseContext, ProbeAdapter, ShapeVerdict, StreamChecker, StreamStep, Usage } from './types.ts';
import type { Canary } from '../canary-config.ts';

/**
 * What a canary adds (`@google/genai` GenerateContentConfig, as the REST body names it):
 * `temperature: 0` and `seed` in `generationConfig`; JSON of a schema
 * (`responseMimeType` + `responseJsonSchema`); or one function forced with
 * `functionCallingConfig` mode `ANY` limited to its name.
 */
function applyCanary(body: Record<string, unknown>, generationConfig: Record<string, unknown>, canary: Canary): void {
  generationConfig.temperature = 0;
  generationConfig.seed = canary.seed;
  const e = canary.expect;
  if (e.kind === 'json_schema') {
    generationConfig.responseMimeType = 'application/json';
    generationConfig.responseJsonSchema = e.schema;
  }
  if (e.kind === 'tool_call') {
    body.tools = [{ functionDeclarations: [{ name: e.name, description: 'The canary task\'s answer.', parametersJsonSchema: e.parameters }] }];
    body.toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [e.name] } };
  }
}

interface GeminiRequest extends ChatRequest {
  apiVersion: string;
  /** Set for Vertex AI. */
  vertex: { project: string; location: string; publisher: string } | undefined;
  auth: 'api_key' | 'bearer';
  thinking: { budget: number } | { level: 'low' } | undefined;
}

/** 2.5 Pro's smallest thinking budget (it cannot be turned off). */
const PRO_MIN_THINKING = 128;
/** Room for the answer on top of a thinking budget. */
const ANSWER_ROOM = 64;
/** Gemini 3's output ceiling for a probe at thinking level low (a ceiling: billed by use). */
const LEVEL_MAX_TOKENS = 1_024;
const EXTRA = ['api_version', 'project', 'location', 'publisher', 'auth', 'thinking_budget'] as const;

/** The thinking a probe of `model` asks for when `thinking_budget` is not given. */
function defaultThinking(model: string): GeminiRequest['thinking'] {
  const bare = model.slice(model.lastIndexOf('/') + 1);
  if (/^gemini-3/.test(bare)) return { level: 'low' };
  if (/^gemini-2\.5-pro/.test(bare)) return { budget: PRO_MIN_THINKING };
  if (/^gemini-2\.5/.test(bare)) return { budget: 0 };
  return undefined;
}

/** Input and output (candidates + thoughts) tokens of `usageMetadata`. */
function usageOf(o: Record<string, unknown>): Usage | undefined {
  const u = o.usageMetadata;
  if (!isObject(u)) return undefined;
  const input = count(u.promptTokenCount);
  if (input === undefined) return undefined;
  return { inputTokens: input, outputTokens: (count(u.candidatesTokenCount) ?? 0) + (count(u.thoughtsTokenCount) ?? 0) };
}

/** The finish of a response: the candidate's `finishReason`, else the prompt's `blockReason`. */
function finishOf(o: Record<string, unknown>): { field: string; value: string } | undefined {
  const c = Array.isArray(o.candidates) ? o.candidates[0] : undefined;
  if (isObject(c) && typeof c.finishReason === 'string') return { field: 'finishReason', value: c.finishReason };
  const f = o.promptFeedback;
  if (isObject(f) && typeof f.blockReason === 'string') return { field: 'promptFeedback.blockReason', value: f.blockReason };
  return undefined;
}

function verdict(finish: { field: string; value: string }, usage: Usage | undefined): ShapeVerdict {
  const blocked = finish.field !== 'finishReason';
  const cls = classifyFinishReason(finish.value) ?? (blocked ? 'policy' : undefined);
  const u = usage ? { usage } : {};
  if (cls) return { ok: false, errorClass: cls, reason: `${finish.field} ${finish.value}`, ...u };
  return { ok: true, ...u };
}

/** Whether a response carries answer content: text that is not a thought, or a function call. */
function hasAnswer(o: Record<string, unknown>): boolean {
  const c = Array.isArray(o.candidates) ? o.candidates[0] : undefined;
  const parts = isObject(c) && isObject(c.content) && Array.isArray(c.content.parts) ? c.content.parts : [];
  return parts.some((p: unknown) => isObject(p) && p.thought !== true && ((typeof p.text === 'string' && p.text.length > 0) || isObject(p.functionCall)));
}

class GeminiStreamChecker implements StreamChecker {
  private sawToken = false;
  private finish: { field: string; value: string } | undefined;
  private usage: Usage | undefined;
  private model: string | undefined;

  served(): Served | undefined {
    return this.model ? { model: this.model } : undefined;
  }

  onEvent(ev: SseEvent): StreamStep {
    const data = tryJson(ev.data);
    if (!isObject(data)) return { failure: { errorClass: 'stream_broken', reason: 'malformed chunk' } };
    if (isObject(data.error)) return { failure: { errorClass: classifyErrorBody(data) ?? 'server', reason: 'error chunk in stream' } };
    this.usage = usageOf(data) ?? this.usage;
    this.finish = finishOf(data) ?? this.finish;
    if (typeof data.modelVersion === 'string' && data.modelVersion) this.model = data.modelVersion;
    if (!this.sawToken && hasAnswer(data)) {
      this.sawToken = true;
      return { firstToken: true };
    }
    return {};
  }

  end(): ShapeVerdict {
    if (!this.finish) return { ok: false, errorClass: 'stream_broken', reason: 'stream ended without a finishReason', ...(this.usage ? { usage: this.usage } : {}) };
    return verdict(this.finish, this.usage);
  }
}

/** The `gemini` kind. */
export const gemini: ProbeAdapter<GeminiRequest> = {
  kind: 'gemini',
  requiresApiKey: true,

  parseRequest(r: FieldReader, ctx: ParseContext): GeminiRequest | undefined {
    const budget = r.number('thinking_budget', { integer: true, min: 0, max: 32_768 });
    const project = r.string('project', { pattern: /^[a-z][a-z0-9-]{4,61}[a-z0-9]$/, hint: 'must be a Google Cloud project id' });
    const location = r.string('location', { pattern: /^[a-z0-9-]+$/, hint: 'must be a location such as europe-west4 or global' });
    const publisher = r.string('publisher', { pattern: /^[a-z0-9-]+$/ }) ?? 'google';
    const auth = r.string('auth', { pattern: /^(api_key|bearer)$/, hint: 'must be api_key or bearer' }) as GeminiRequest['auth'] | undefined;
    const apiVersion = r.string('api_version', { pattern: /^v1(beta1?|alpha)?$/, hint: 'must be v1, v1beta, v1beta1 or v1alpha' });
    if ((project === undefined) !== (location === undefined)) r.problem(project === undefined ? 'project' : 'location', 'Vertex AI needs both project and location');
    const thinkingFor = (model: string): GeminiRequest['thinking'] => (budget !== undefined ? { budget } : defaultThinking(model));
    const room = (model: string) => {
      const t = thinkingFor(model);
      if (!t) return undefined;
      return 'level' in t ? LEVEL_MAX_TOKENS : t.budget > 0 ? t.budget + ANSWER_ROOM : undefined;
    };
    const chat = parseChatRequest(r, ctx, '', EXTRA, { defaultFor: (m) => room(m) ?? 8 });
    if (!chat) return undefined;
    const thinking = thinkingFor(chat.model);
    if (thinking && 'budget' in thinking && thinking.budget > 0 && chat.maxTokens <= thinking.budget) {
      r.problem('thinking_budget', `must be below max_tokens (${chat.maxTokens}): Gemini counts the thinking in maxOutputTokens`);
    }
    const vertex = project && location ? { project, location, publisher } : undefined;
    return { ...chat, apiVersion: apiVersion ?? (vertex ? 'v1' : 'v1beta'), vertex, auth: auth ?? (vertex ? 'bearer' : 'api_key'), thinking };
  },

  streamed: (req) => req.stream,
  estimateTokens: (req) => estimateChatTokens(req),
  acceptsStatus: (_req, status) => status >= 200 && status < 300,
  baseUrlProblem(url) {
    const base = url.pathname.replace(/\/+$/, '');
    if (/\/(v1|v1beta1?|v1alpha)$/.test(base) || /\/models(\/|$)/.test(base)) {
      return 'must be the host, as @google/genai\'s baseUrl (e.g. https://generativelanguage.googleapis.com): the kind adds the version and the model path';
    }
    return undefined;
  },

  buildRequest(baseUrl: URL, req: GeminiRequest, apiKey: string | undefined, canary?: Canary): OutgoingRequest {
    const method = req.stream ? 'streamGenerateContent' : 'generateContent';
    const v = req.vertex;
    const where = v ? `projects/${encodeURIComponent(v.project)}/locations/${encodeURIComponent(v.location)}/publishers/${encodeURIComponent(v.publisher)}/models` : 'models';
    const url = new URL(baseUrl.href);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${req.apiVersion}/${where}/${encodeURIComponent(req.model)}:${method}`;
    if (req.stream) url.searchParams.set('alt', 'sse');
    const generationConfig: Record<string, unknown> = { maxOutputTokens: req.maxTokens };
    if (req.thinking) generationConfig.thinkingConfig = 'level' in req.thinking ? { thinkingLevel: req.thinking.level } : { thinkingBudget: req.thinking.budget };
    const body: Record<string, unknown> = {
      contents: [{ role: 'user', parts: [{ text: req.prompt }] }],
      generationConfig,
      ...(req.system ? { systemInstruction: { parts: [{ text: req.system }] } } : {}),
    };
    if (canary) applyCanary(body, generationConfig, canary);
    const key: Record<string, string> = apiKey ? (req.auth === 'bearer' ? { authorization: `Bearer ${apiKey}` } : { 'x-goog-api-key': apiKey }) : {};
    return {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: req.stream ? 'text/event-stream' : 'application/json', ...key },
      body: JSON.stringify(body),
    };
  },

  checkBody(_req: GeminiRequest, text: string): ShapeVerdict {
    const body = tryJson(text);
    if (!isObject(body)) return malformed(text, 'body is not a JSON object');
    const usage = usageOf(body);
    const finish = finishOf(body);
    if (!finish) return malformed(body, 'no candidate with a finishReason and no promptFeedback.blockReason', usage);
    const v = verdict(finish, usage);
    if (!v.ok) return v;
    if (!hasAnswer(body)) return malformed(body, 'the candidate holds no text or function call', usage);
    if (!usage) return malformed(body, 'no usageMetadata', usage);
    return v;
  },

  readAnswer(_req: GeminiRequest, text: string): Answer | undefined {
    const body = tryJson(text);
    const c = isObject(body) && Array.isArray(body.candidates) ? body.candidates[0] : undefined;
    if (!isObject(body) || !isObject(c) || !isObject(c.content) || !Array.isArray(c.content.parts)) return undefined;
    // Thought summaries are not the answer.
    const parts = c.content.parts.filter((p: unknown): p is Record<string, unknown> => isObject(p) && p.thought !== true);
    return {
      text: parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join(''),
      toolCalls: parts.flatMap((p) => (isObject(p.functionCall) && typeof p.functionCall.name === 'string' ? [{ name: p.functionCall.name, arguments: p.functionCall.args ?? {} }] : [])),
      ...(typeof body.modelVersion === 'string' && body.modelVersion ? { servedModel: body.modelVersion } : {}),
    };
  },

  createStreamChecker: () => new GeminiStreamChecker(),
};
