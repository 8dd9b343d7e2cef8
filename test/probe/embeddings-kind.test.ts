/**
 * The `openai-embeddings` kind against a provider speaking the embeddings wire format
 * (`CreateEmbeddingResponse`, float lists or base64 float32 as the official client asks):
 * ok only with one finite, non-zero vector per input, all of the expected dimension.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configOf, rawTarget } from './helpers.ts';
import { probeOnce } from './probe-once.ts';
import { startWireProvider, type WireMode, type WireProvider } from './wire-provider.ts';

let wire: WireProvider;
let seq = 0;
beforeAll(async () => {
  wire = await startWireProvider({ dimension: 1536 });
});
afterAll(async () => {
  await wire.close();
});

const fresh = (mode: WireMode = 'ok') => {
  const model = `text-embedding-3-small-${++seq}`;
  wire.mode(model, mode);
  return model;
};
const last = () => wire.requests[wire.requests.length - 1]!;

describe('healthy embeddings answers', () => {
  for (const encoding of ['base64', 'float'] as const) {
    it(`one ${encoding} vector per input is ok, priced from prompt_tokens`, async () => {
      const model = fresh();
      const { event } = await probeOnce(wire.baseUrl, 'openai-embeddings', model, { encoding_format: encoding, input: ['a', 'b'] });
      expect(event).toMatchObject({ outcome: 'ok', status: 200 });
      expect(event.cost_usd).toBeCloseTo((6 * 1.25) / 1e6, 12);
      expect(last().body).toEqual({ model, input: ['a', 'b'], encoding_format: encoding });
    });
  }

  it('sends what the official client sends by default: one input, base64', async () => {
    const model = fresh();
    await probeOnce(wire.baseUrl, 'openai-embeddings', model);
    expect(last().path).toBe('/v1/embeddings');
    expect(last().body).toEqual({ model, input: 'breakerbox probe', encoding_format: 'base64' });
  });

  it('sends dimensions when configured and expects vectors of that size', async () => {
    const model = fresh();
    const { event } = await probeOnce(wire.baseUrl, 'openai-embeddings', model, { dimensions: 256 });
    expect(event.outcome).toBe('ok');
    expect(last().body).toMatchObject({ dimensions: 256 });
  });
});

describe('embeddings answers that are not ok', () => {
  const cases: Array<{ name: string; mode: WireMode; reason: string }> = [
    { name: 'no data list', mode: 'no_data', reason: 'no data list' },
    { name: 'fewer vectors than inputs', mode: 'short', reason: '1 vectors for 2 input(s)' },
    { name: 'an all-zero vector', mode: 'zeros', reason: 'data[0].embedding is all zeros' },
    { name: 'an empty vector', mode: 'empty_vector', reason: 'data[0].embedding is empty' },
  ];
  for (const c of cases) {
    it(`${c.name} is a shape failure (error / server), not ok`, async () => {
      const { event, lines } = await probeOnce(wire.baseUrl, 'openai-embeddings', fresh(c.mode), { input: ['a', 'b'], encoding_format: 'float' });
      expect(event).toMatchObject({ outcome: 'error', error_class: 'server', status: 200 });
      expect(lines.some((l) => l.includes(c.reason))).toBe(true);
    });
  }

  it('a dimension other than expect_dimension is a shape failure', async () => {
    const model = fresh();
    wire.dimension(model, 768);
    const { event, lines } = await probeOnce(wire.baseUrl, 'openai-embeddings', model, { expect_dimension: 1536 });
    expect(event).toMatchObject({ outcome: 'error', error_class: 'server' });
    expect(lines.some((l) => l.includes('dimension 768, expected 1536'))).toBe(true);
  });

  it('without a configured dimension, learns it from the first good answer and flags a later change', async () => {
    const model = fresh();
    // One target, probed twice; between the probes the model starts answering 1024-dimensional vectors.
    const { events, lines } = await probeOnce(wire.baseUrl, 'openai-embeddings', model, {}, { times: 2, after: (i) => i === 0 && wire.dimension(model, 1024) });
    expect(events.map((e) => e.outcome)).toEqual(['ok', 'error']);
    expect(lines.some((l) => l.includes('dimension 1024, expected 1536'))).toBe(true);
  });

  it('refuses bad request fields, naming them', () => {
    const problems = (request: Record<string, unknown>) => {
      try {
        configOf({ targets: [rawTarget('http://127.0.0.1:9/v1', 'emb', { kind: 'openai-embeddings', request })] });
        return [];
      } catch (err) {
        return (err as Error).message.split('\n').slice(1);
      }
    };
    expect(problems({ encoding_format: 'int8' })).toEqual(['target "emb" (targets[0]): request.encoding_format: must be base64 or float, got "int8"']);
    expect(problems({ input: [] })).toEqual(['target "emb" (targets[0]): request.input: must be a non-empty string or a list of 1-16 of them (at most 2000 characters each), got a list']);
    expect(problems({ dimensions: 256, expect_dimension: 512 })).toEqual(['target "emb" (targets[0]): request.expect_dimension: is 512, but dimensions asks for 256: give one of them']);
    expect(problems({ dimensions: 0 })).toEqual(['target "emb" (targets[0]): request.dimensions: must be an integer between 1 and 65536, got 0']);
    expect(problems({ prompt: 'x' })[0]).toMatch(/request\.prompt: unknown field \(allowed: model, input, dimensions, expect_dimension, encoding_format, path\)/);
  });
});
