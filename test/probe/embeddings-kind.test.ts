/**
 * The `openai-embeddings` kind against the shared fake provider speaking the embeddings
 * wire format (`CreateEmbeddingResponse`, float lists or base64 float32 as the official
 * client asks): ok only with one finite, non-zero vector per input, all of the expected
 * dimension.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateInputTokens } from '../support/fake-provider-bodies.ts';
import { startFakeProvider, type FakeProvider, type Fault } from '../support/fake-provider.ts';
import { API_KEY, configOf, rawTarget } from './helpers.ts';
import { probeOnce } from './probe-once.ts';

let fake: FakeProvider;
let base: string;
let seq = 0;
beforeAll(async () => {
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
  base = fake.openaiBaseUrl;
});
afterAll(async () => {
  await fake.close();
});

/** A model the fake answers 1536-dimensional vectors for, scripted with `faults` (then ok). */
const fresh = (...faults: Fault[]) => {
  const model = `text-embedding-3-small-${++seq}`;
  if (faults.length) fake.script(model, faults);
  return model;
};
const last = () => fake.attempts[fake.attempts.length - 1]!;

describe('healthy embeddings answers', () => {
  for (const encoding of ['base64', 'float'] as const) {
    it(`one ${encoding} vector per input is ok, priced from prompt_tokens`, async () => {
      const model = fresh();
      const { event } = await probeOnce(base, 'openai-embeddings', model, { encoding_format: encoding, input: ['a', 'b'] });
      expect(event).toMatchObject({ outcome: 'ok', status: 200 });
      expect(event.cost_usd).toBeCloseTo((estimateInputTokens(last().body) * 1.25) / 1e6, 12);
      expect(last().body).toEqual({ model, input: ['a', 'b'], encoding_format: encoding });
    });
  }

  it('sends what the official client sends by default: one input, base64', async () => {
    const model = fresh();
    await probeOnce(base, 'openai-embeddings', model);
    expect(last().path).toBe('/v1/embeddings');
    expect(last().body).toEqual({ model, input: 'breakerbox probe', encoding_format: 'base64' });
  });

  it('sends dimensions when configured and expects vectors of that size', async () => {
    const model = fresh();
    const { event } = await probeOnce(base, 'openai-embeddings', model, { dimensions: 256 });
    expect(event.outcome).toBe('ok');
    expect(last().body).toMatchObject({ dimensions: 256 });
  });
});

describe('embeddings answers that are not ok', () => {
  const cases: Array<{ name: string; fault: Fault; reason: string }> = [
    { name: 'no vectors', fault: { kind: 'bad_embeddings', how: 'missing' }, reason: '0 vectors for 2 input(s)' },
    { name: 'fewer vectors than inputs', fault: { kind: 'bad_embeddings', how: 'count' }, reason: '1 vectors for 2 input(s)' },
    { name: 'an all-zero vector', fault: { kind: 'bad_embeddings', how: 'zeros' }, reason: 'data[0].embedding is all zeros' },
    { name: 'an empty vector', fault: { kind: 'bad_embeddings', how: 'empty' }, reason: 'data[0].embedding is empty' },
    { name: 'vectors of two sizes', fault: { kind: 'bad_embeddings', how: 'dimension' }, reason: 'vectors of dimensions 768 and 1536 in one answer' },
  ];
  for (const c of cases) {
    it(`${c.name} is a shape failure (error / server), not ok`, async () => {
      const { event, lines } = await probeOnce(base, 'openai-embeddings', fresh(c.fault), { input: ['a', 'b'], encoding_format: 'float' });
      expect(event).toMatchObject({ outcome: 'error', error_class: 'server', status: 200 });
      expect(lines.some((l) => l.includes(c.reason))).toBe(true);
    });
  }

  it('a dimension other than expect_dimension is a shape failure', async () => {
    const model = fresh({ kind: 'ok', embeddingDimensions: 768 });
    const { event, lines } = await probeOnce(base, 'openai-embeddings', model, { expect_dimension: 1536 });
    expect(event).toMatchObject({ outcome: 'error', error_class: 'server' });
    expect(lines.some((l) => l.includes('dimension 768, expected 1536'))).toBe(true);
  });

  it('without a configured dimension, learns it from the first good answer and flags a later change', async () => {
    // One target, probed twice; the second answer holds 1024-dimensional vectors.
    const model = fresh({ kind: 'ok' }, { kind: 'ok', embeddingDimensions: 1024 });
    const { events, lines } = await probeOnce(base, 'openai-embeddings', model, {}, { times: 2 });
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
