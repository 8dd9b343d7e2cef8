/**
 * `openai-embeddings`: OpenAI's `POST /embeddings` and compatible endpoints (the official
 * client's `client.embeddings.create`). `base_url` includes the version:
 * `https://api.openai.com/v1`.
 *
 * An embeddings answer can be a 200 and still useless: no `data`, fewer vectors than
 * inputs, an empty or all-zero vector, a dimension that changed under the product's
 * index. The probe checks the count, that every vector holds finite numbers, and the
 * dimension: the configured one (`dimensions` / `expect_dimension`), else the one the
 * target's first good answer had. Vectors travel as base64 float32 by default, as the
 * official client asks for them; `encoding_format: float` sends JSON numbers.
 */
import { show, type FieldReader } from '../config-fields.ts';
import { count, isObject, malformed, openAiJsonPost, tryJson } from './chat-request.ts';
import { openAiBaseUrlProblem } from './base-url.ts';
import type { OutgoingRequest, ParseContext, ProbeAdapter, ShapeVerdict, StreamChecker, Usage } from './types.ts';

interface EmbeddingsRequest {
  model: string;
  inputs: string[];
  /** Sent as `dimensions` (text-embedding-3 and later) and expected back. */
  dimensions: number | undefined;
  /** Expected without being sent; learned from the first good answer when neither is given. */
  expectDimension: number | undefined;
  encoding: 'base64' | 'float';
  path: string;
  /** The dimension of this target's first good answer (one number per target, never more). */
  learned: { dimension?: number };
}

const FIELDS = ['model', 'input', 'dimensions', 'expect_dimension', 'encoding_format', 'path'];
export const DEFAULT_EMBEDDING_INPUT = 'breakerbox probe';
const MAX_DIMENSION = 65_536;

function readInputs(r: FieldReader): string[] {
  const raw = r.obj.input;
  if (raw === undefined || raw === null) return [DEFAULT_EMBEDDING_INPUT];
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0 || list.length > 16 || !list.every((s) => typeof s === 'string' && s.length > 0 && s.length <= 2_000)) {
    r.problem('input', `must be a non-empty string or a list of 1-16 of them (at most 2000 characters each), got ${show(raw)}`);
    return [DEFAULT_EMBEDDING_INPUT];
  }
  return list as string[];
}

/** One vector's dimension, or why it is not a vector. */
function vectorOf(embedding: unknown, encoding: EmbeddingsRequest['encoding']): number | string {
  let values: ArrayLike<number>;
  if (typeof embedding === 'string') {
    if (encoding !== 'base64') return 'is base64 text, but floats were asked for';
    const bytes = Buffer.from(embedding, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) return `is ${bytes.length} bytes of base64, not a float32 vector`;
    values = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  } else if (Array.isArray(embedding)) {
    if (!embedding.every((v) => typeof v === 'number')) return 'holds something other than numbers';
    values = embedding as number[];
  } else {
    return 'is missing';
  }
  if (values.length === 0) return 'is empty';
  let nonZero = false;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) return 'holds a value that is not a finite number';
    if (v !== 0) nonZero = true;
  }
  return nonZero ? values.length : 'is all zeros';
}

function usageOf(body: Record<string, unknown>): Usage | undefined {
  const input = isObject(body.usage) ? count(body.usage.prompt_tokens) : undefined;
  return input === undefined ? undefined : { inputTokens: input, outputTokens: 0 };
}

/** The `openai-embeddings` kind. */
export const openAiEmbeddings: ProbeAdapter<EmbeddingsRequest> = {
  kind: 'openai-embeddings',
  requiresApiKey: true,

  parseRequest(r: FieldReader, ctx: ParseContext): EmbeddingsRequest | undefined {
    r.rejectUnknown(FIELDS);
    const dimensions = r.number('dimensions', { integer: true, min: 1, max: MAX_DIMENSION });
    const expectDimension = r.number('expect_dimension', { integer: true, min: 1, max: MAX_DIMENSION });
    if (dimensions !== undefined && expectDimension !== undefined && dimensions !== expectDimension) {
      r.problem('expect_dimension', `is ${expectDimension}, but dimensions asks for ${dimensions}: give one of them`);
    }
    const encoding = r.string('encoding_format', { pattern: /^(base64|float)$/, hint: 'must be base64 or float' });
    return {
      model: r.string('model', { maxLength: 256 }) ?? ctx.key.model,
      inputs: readInputs(r),
      dimensions,
      expectDimension: expectDimension ?? dimensions,
      encoding: (encoding as EmbeddingsRequest['encoding'] | undefined) ?? 'base64',
      path: r.string('path', { pattern: /^\/\S*$/, hint: 'must start with "/"' }) ?? '/embeddings',
      learned: {},
    };
  },

  streamed: () => false,
  estimateTokens: (req) => ({ inputTokens: req.inputs.reduce((n, s) => n + Math.ceil(s.length / 4) + 1, 0), outputTokens: 0 }),
  acceptsStatus: (_req, status) => status >= 200 && status < 300,
  baseUrlProblem: (url, req) => openAiBaseUrlProblem(url, req.path),

  buildRequest(baseUrl: URL, req: EmbeddingsRequest, apiKey: string | undefined): OutgoingRequest {
    const body: Record<string, unknown> = {
      model: req.model,
      input: req.inputs.length === 1 ? req.inputs[0] : req.inputs,
      encoding_format: req.encoding,
      ...(req.dimensions !== undefined ? { dimensions: req.dimensions } : {}),
    };
    return openAiJsonPost(baseUrl, req.path, body, false, apiKey);
  },

  checkBody(req: EmbeddingsRequest, text: string): ShapeVerdict {
    const body = tryJson(text);
    if (!isObject(body)) return malformed(text, 'body is not a JSON object');
    const usage = usageOf(body);
    if (!Array.isArray(body.data)) return malformed(body, 'no data list', usage);
    if (body.data.length !== req.inputs.length) {
      return malformed(body, `${body.data.length} vectors for ${req.inputs.length} input(s)`, usage);
    }
    const expected = req.expectDimension ?? req.learned.dimension;
    const seen = new Set<number>();
    let dimension: number | undefined;
    for (const [i, item] of body.data.entries()) {
      if (!isObject(item)) return malformed(body, `data[${i}] is not an object`, usage);
      const index = count(item.index) ?? i;
      if (index >= req.inputs.length || seen.has(index)) return malformed(body, `data[${i}].index ${index} is out of place`, usage);
      seen.add(index);
      const dim = vectorOf(item.embedding, req.encoding);
      if (typeof dim === 'string') return malformed(body, `data[${i}].embedding ${dim}`, usage);
      if (dimension !== undefined && dim !== dimension) return malformed(body, `vectors of dimensions ${dimension} and ${dim} in one answer`, usage);
      dimension = dim;
    }
    if (expected !== undefined && dimension !== expected) {
      return malformed(body, `dimension ${dimension}, expected ${expected}`, usage);
    }
    if (!usage) return malformed(body, 'no usage', usage);
    req.learned.dimension ??= dimension;
    return { ok: true, usage };
  },

  createStreamChecker(): StreamChecker {
    // Embeddings are never streamed; a checker that accepts the end keeps the contract total.
    return { onEvent: () => ({}), end: () => ({ ok: true }) };
  },
};
