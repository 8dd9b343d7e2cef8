/**
 * OpenAI embeddings bodies of the fake provider (`openai/resources/embeddings` types):
 * one vector per input, of the model's dimension (or the request's `dimensions`), as
 * floats or — what the official client asks for by default — base64 of little-endian
 * float32. `bad` spoils the answer the ways a broken deployment does.
 */

/** How an embeddings answer is spoiled: no vectors, one vector too few/many, a short vector, empty vectors, an all-zero first vector. */
export type BadEmbeddings = 'missing' | 'count' | 'dimension' | 'empty' | 'zeros';

const DIMENSIONS: Record<string, number> = {
  'text-embedding-3-large': 3072,
  'text-embedding-3-small': 1536,
  'text-embedding-ada-002': 1536,
};

/** How many inputs a request embeds. */
export function embeddingInputs(body: Record<string, unknown>): number {
  const input = body.input;
  if (typeof input === 'string') return 1;
  if (Array.isArray(input)) return input.length > 0 && typeof input[0] === 'number' ? 1 : input.length;
  return 0;
}

function vector(seed: number, dims: number): number[] {
  const v: number[] = [];
  for (let k = 0; k < dims; k++) v.push(Math.round(Math.sin(seed * 31 + k) * 1e4) / 1e5);
  return v;
}

function encode(v: number[], format: unknown): number[] | string {
  if (format !== 'base64') return v;
  return Buffer.from(new Float32Array(v).buffer).toString('base64');
}

/** A `list` of `embedding` objects for `body`, spoiled by `bad` when set. */
export function embeddingsJson(body: Record<string, unknown>, inputTokens: number, bad?: BadEmbeddings): string {
  const model = String(body.model ?? '');
  const dims = typeof body.dimensions === 'number' ? body.dimensions : (DIMENSIONS[model] ?? 1536);
  let n = embeddingInputs(body);
  if (bad === 'missing') n = 0;
  if (bad === 'count') n = n > 1 ? n - 1 : n + 1;
  const data = [];
  for (let i = 0; i < n; i++) {
    const d = bad === 'empty' ? 0 : bad === 'dimension' && i === 0 ? Math.max(1, Math.floor(dims / 2)) : dims;
    const v = bad === 'zeros' && i === 0 ? new Array<number>(d).fill(0) : vector(i, d);
    data.push({ object: 'embedding', index: i, embedding: encode(v, body.encoding_format) });
  }
  return JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: inputTokens, total_tokens: inputTokens } });
}
