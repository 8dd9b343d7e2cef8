import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTraceState, SpanKind } from '@opentelemetry/api';
import { makeApp, testConfig } from '../server/helpers.ts';
import { bodyMaker } from './otlp-bodies.ts';
import { spanMaker } from './span-bodies.ts';
import { nonZero } from './instrumented-app.ts';
import { sqlOf } from '../support/sql.ts';
import { samplingWeight } from '../../server/otlp/sampling.ts';
import { classifySpanError } from '../../server/otlp/error-type.ts';
import { SPAN_SAMPLES } from '../../server/otlp/span-sample.ts';

const GENAI = { 'gen_ai.system': 'openai', 'gen_ai.operation.name': 'chat', 'server.address': 'api.openai.com' };

let t: Awaited<ReturnType<typeof makeApp>>;
beforeAll(async () => {
  t = await makeApp({ ingest: { ...testConfig(':memory:').ingest, otlp_traces_hold_ms: 0 } });
});
afterAll(async () => {
  await t.close();
});

const post = (url: string, payload: Buffer, encoding: 'protobuf' | 'json', headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST', url, payload,
    headers: { 'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json', authorization: `Bearer ${t.tokens.ingest}`, ...headers },
  });

const read = async (path: string) => (await t.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${t.tokens.read}` } })).json();
const verdictOf = async (model: string) => (await read('/api/verdicts?window=15m')).verdicts.find((v: any) => v.key.model === model);

describe('POST /v1/traces', () => {
  it('tallies model-call spans into the key: calls, classes from error.type or the exception, latency from the duration; other spans are ignored', async () => {
    const m = spanMaker({ service: 'traces-receiver', instance: 'i-1' });
    const attrs = { ...GENAI, 'gen_ai.request.model': 'span-model', 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 5 };
    for (let i = 0; i < 3; i++) m.record({ attributes: attrs, durationMs: 300 });
    m.record({ attributes: { ...attrs, 'error.type': 'RateLimitError' }, durationMs: 40, error: { message: '429 Rate limit reached for requests' } });
    m.record({ attributes: attrs, durationMs: 2000, error: { message: '503 Service Unavailable' } }); // OpenAI JS errors are named "Error"
    m.record({ attributes: { ...attrs, 'error.type': 'WeirdVendorThing' }, durationMs: 10, error: { message: 'it broke' } });
    m.record({ attributes: { 'http.request.method': 'POST', 'server.address': 'api.openai.com' }, durationMs: 290 }); // the HTTP client's own span
    m.record({ attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'span-model' }, durationMs: 5 }); // no provider at all
    const res = await post('/v1/traces', gzipSync(m.body('json')), 'json', { 'content-encoding': 'gzip' });
    await m.shutdown();
    expect(res.statusCode).toBe(200);
    expect(res.json().partialSuccess.rejectedSpans).toBe('1');
    expect(res.json().partialSuccess.errorMessage).toMatch(/no provider/);

    const v = await verdictOf('span-model');
    expect(v.key).toEqual({ provider: 'openai', endpoint: 'chat', model: 'span-model' });
    expect(v.clients).toMatchObject({ calls: 6, ok: 3, failed: 3, input_tokens: 72, output_tokens: 30 });
    expect(nonZero(v.clients.errors)).toEqual({ rate_limit: 1, server: 1, unclassified: 1 });
    expect(v.clients.latency_ms.p50).toBeGreaterThan(250);
    expect(v.clients.latency_ms.p50).toBeLessThanOrEqual(500);
    expect(v.evidence.join('\n')).toMatch(/unclassified/);
  });

  it('fills evidence samples from failed spans: request id, status, served model, the exception message redacted; none from ok spans', async () => {
    const m = spanMaker({ service: 'traces-samples', instance: 'i-1' });
    const attrs = { ...GENAI, 'gen_ai.request.model': 'sampled-evidence' };
    m.record({ attributes: attrs, durationMs: 300 });
    m.record({
      attributes: { ...attrs, 'http.response.status_code': 503, 'http.response.header.x-request-id': 'req_5d1e0c4b9a7f4e2b8c3d6a1f0e9b8c7d', 'gen_ai.response.model': 'sampled-evidence-2025' },
      durationMs: 900, error: { message: '503 The server is overloaded. Key sk-proj-AbCdEf0123456789xyz, contact ops@example.com' },
    });
    m.record({ attributes: { ...attrs, 'error.type': 'RateLimitError', 'gen_ai.response.id': 'chatcmpl-9xYz' }, durationMs: 40, error: { message: '429 Rate limit reached' } });
    for (let i = 0; i < 7; i++) m.record({ attributes: attrs, durationMs: 50, error: { message: `503 Service Unavailable #${i}` } });
    expect((await post('/v1/traces', m.body('json'), 'json')).statusCode).toBe(200);
    await m.shutdown();
    const { samples } = await read('/api/key/samples?provider=openai&endpoint=chat&model=sampled-evidence&window=15m');
    // The latest 5 failed spans of the export (a tally keeps SPAN_SAMPLES), newest first.
    expect(samples).toHaveLength(SPAN_SAMPLES);
    expect(samples.every((r: any) => r.sample.outcome === 'error' && r.service === 'traces-samples')).toBe(true);

    const m2 = spanMaker({ service: 'traces-samples', instance: 'i-2' });
    m2.record({
      attributes: { ...attrs, 'http.response.status_code': 503, 'http.response.header.x-request-id': 'req_5d1e0c4b9a7f4e2b8c3d6a1f0e9b8c7d', 'gen_ai.response.model': 'sampled-evidence-2025' },
      durationMs: 900, error: { message: '503 The server is overloaded. Key sk-proj-AbCdEf0123456789xyz, contact ops@example.com' },
    });
    m2.record({ attributes: { ...attrs, 'error.type': 'RateLimitError', 'gen_ai.response.id': 'chatcmpl-9xYz' }, durationMs: 40, error: { message: '429 Rate limit reached' } });
    expect((await post('/v1/traces', m2.body('json'), 'json')).statusCode).toBe(200);
    await m2.shutdown();
    const two = (await read('/api/key/samples?provider=openai&endpoint=chat&model=sampled-evidence&window=15m&instance=i-2')).samples.map((r: any) => r.sample);
    expect(two).toHaveLength(2);
    const overloaded = two.find((x: any) => x.status === 503);
    expect(overloaded).toMatchObject({ error_class: 'server', upstream_request_id: 'req_5d1e0c4b9a7f4e2b8c3d6a1f0e9b8c7d', model_served: 'sampled-evidence-2025', attempt: 1 });
    expect(overloaded.duration_ms).toBeGreaterThanOrEqual(899);
    expect(overloaded.message).toContain('The server is overloaded');
    expect(overloaded.message).not.toMatch(/sk-proj-AbCdEf|ops@example\.com/);
    expect(two.find((x: any) => x.error_class === 'rate_limit')).toMatchObject({ upstream_request_id: 'chatcmpl-9xYz', message: '429 Rate limit reached' });
  });

  it('stores a retried identical protobuf export once, and answers it in protobuf', async () => {
    const m = spanMaker({ service: 'traces-retry', instance: 'i-1' });
    for (let i = 0; i < 4; i++) m.record({ attributes: { ...GENAI, 'gen_ai.request.model': 'retried-model' }, durationMs: 100 });
    const body = m.body('protobuf');
    await m.shutdown();
    for (let i = 0; i < 2; i++) {
      const res = await post('/v1/traces', body, 'protobuf');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/x-protobuf/);
      expect(res.rawPayload.length).toBe(0); // nothing refused: an empty ExportTraceServiceResponse
    }
    expect((await verdictOf('retried-model')).clients.calls).toBe(4);
  });

  it('weighs sampled spans by the probability in tracestate ot=th:, and says the key was fed by sampled spans', async () => {
    const m = spanMaker({ service: 'traces-sampled', instance: 'i-1' });
    const quarter = createTraceState('ot=th:c'); // rejection threshold 0xc/0x10: kept with probability 1/4
    m.record({ attributes: { ...GENAI, 'gen_ai.request.model': 'sampled-model' }, durationMs: 100, traceState: quarter });
    m.record({ attributes: { ...GENAI, 'gen_ai.request.model': 'sampled-model' }, durationMs: 100, traceState: quarter, error: { message: '503 Service Unavailable' } });
    expect((await post('/v1/traces', m.body('protobuf'), 'protobuf')).statusCode).toBe(200);
    await m.shutdown();
    const v = await verdictOf('sampled-model');
    expect(v.clients).toMatchObject({ calls: 8, ok: 4, failed: 4 });
    const detail = await read('/api/key?provider=openai&endpoint=chat&model=sampled-model&window=15m');
    expect(detail.instances.find((i: any) => i.service === 'traces-sampled').sdk).toMatch(/ spans sampled$/);
  });

  it('skips server spans (a model server’s own) and refuses spans outside the retention', async () => {
    const m = spanMaker({ service: 'traces-skips', instance: 'i-1' });
    m.record({ attributes: { ...GENAI, 'gen_ai.request.model': 'server-side' }, durationMs: 100, kind: SpanKind.SERVER });
    m.record({ attributes: { ...GENAI, 'gen_ai.request.model': 'ancient' }, durationMs: 100, endsAt: Date.now() - 400 * 86_400_000 });
    const res = await post('/v1/traces', m.body('json'), 'json');
    await m.shutdown();
    expect(res.json().partialSuccess).toMatchObject({ rejectedSpans: '1', errorMessage: expect.stringMatching(/outside the accepted span/) });
    expect(await verdictOf('server-side')).toBeUndefined();
  });
});

describe('GenAI metrics: failures without a key, newer names', () => {
  it('files a failure point with only error.type under the one key of its series, else under "unattributed"', async () => {
    const one = bodyMaker({ service: 'py-openllmetry', instance: 'i-1' });
    const attrs = { ...GENAI, 'gen_ai.request.model': 'lonely-model' };
    for (let i = 0; i < 5; i++) one.duration.record(0.2, attrs);
    for (let i = 0; i < 2; i++) one.duration.record(1, { 'error.type': 'InternalServerError' }); // as OpenLLMetry Python records failures
    expect((await post('/v1/metrics', await one.body('protobuf'), 'protobuf')).statusCode).toBe(200);
    await one.shutdown();
    const v = await verdictOf('lonely-model');
    expect(v.clients).toMatchObject({ calls: 7, ok: 5, failed: 2 });
    expect(v.clients.errors.server).toBe(2);

    const two = bodyMaker({ service: 'py-two-models', instance: 'i-1' });
    two.duration.record(0.2, { ...GENAI, 'gen_ai.request.model': 'first-of-two' });
    two.duration.record(0.2, { ...GENAI, 'gen_ai.request.model': 'second-of-two' });
    two.duration.record(1, { 'error.type': 'APIConnectionError' });
    expect((await post('/v1/metrics', await two.body('json'), 'json')).statusCode).toBe(200);
    await two.shutdown();
    const u = await verdictOf('unattributed');
    expect(u.key).toEqual({ provider: 'unattributed', endpoint: 'unattributed', model: 'unattributed' });
    expect(u.clients.errors.network).toBe(1);
    expect((await verdictOf('first-of-two')).clients.failed).toBe(0);
  });

  it('reads gen_ai.client.inference.duration and time_to_first_chunk beside the current names', async () => {
    const m = bodyMaker({ service: 'semconv-next', instance: 'i-1' });
    const inference = m.meter.createHistogram('gen_ai.client.inference.duration', { unit: 's', advice: { explicitBucketBoundaries: [0.1, 0.5, 1, 5] } });
    const ttfc = m.meter.createHistogram('gen_ai.client.operation.time_to_first_chunk', { unit: 's', advice: { explicitBucketBoundaries: [0.05, 0.1, 0.5, 1] } });
    const attrs = { 'gen_ai.provider.name': 'anthropic', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-next' };
    for (let i = 0; i < 4; i++) {
      inference.record(0.4, attrs);
      ttfc.record(0.08, attrs);
    }
    expect((await post('/v1/metrics', await m.body('protobuf'), 'protobuf')).statusCode).toBe(200);
    await m.shutdown();
    const v = await verdictOf('claude-next');
    expect(v.key.endpoint).toBe('messages');
    expect(v.clients.calls).toBe(4);
    expect(v.clients.ttft_ms.p50).toBeGreaterThan(50);
    expect(v.clients.ttft_ms.p50).toBeLessThanOrEqual(100);
  });
});

describe('sampling weights and span failure classes', () => {
  it.each([['', 1], ['ot=th:0', 1], ['ot=th:8', 2], ['ot=th:c', 4], ['vendor=x,ot=rv:abc;th:e', 8], ['ot=th:zz', 1]])('tracestate "%s" → weight %d', (state, weight) => {
    expect(samplingWeight(state as string)).toBe(weight);
  });

  it('reads the class from the exception or its message when error.type says nothing', () => {
    expect(classifySpanError({ exceptionType: 'Error', exceptionMessage: '503 Service Unavailable' })).toBe('server');
    expect(classifySpanError({ exceptionType: 'insufficient_quota', exceptionMessage: '429 You exceeded your current quota' })).toBe('quota');
    expect(classifySpanError({ errorType: 'RateLimitError', statusMessage: '429 You exceeded your current quota, please check your plan' })).toBe('quota');
    expect(classifySpanError({ statusMessage: "Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error'}}" })).toBe('server');
    expect(classifySpanError({ exceptionMessage: 'Request timed out.' })).toBe('timeout');
    expect(classifySpanError({ exceptionMessage: 'Connection error.' })).toBe('network');
    expect(classifySpanError({ httpStatus: 401 })).toBe('auth');
    expect(classifySpanError({ exceptionType: 'Error', exceptionMessage: 'something odd' })).toBeUndefined();
  });
});

describe('held span tallies', () => {
  it('are stored once their hold has passed, one window per service, instance and key', async () => {
    const held = await makeApp({ ingest: { ...testConfig(':memory:').ingest, otlp_traces_hold_ms: 300 } });
    try {
      const m = spanMaker({ service: 'held-spans', instance: 'i-1' });
      const send = async () => {
        const res = await held.app.inject({
          method: 'POST', url: '/v1/traces', payload: m.body('protobuf'),
          headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${held.tokens.ingest}` },
        });
        expect(res.statusCode).toBe(200);
      };
      for (let i = 0; i < 3; i++) m.record({ attributes: { ...GENAI, 'gen_ai.request.model': 'held-model' }, durationMs: 100 });
      await send();
      for (let i = 0; i < 2; i++) m.record({ attributes: { ...GENAI, 'gen_ai.request.model': 'held-model' }, durationMs: 100 });
      await send();
      await m.shutdown();
      const calls = async () => {
        const res = await held.app.inject({ method: 'GET', url: '/api/verdicts?window=15m', headers: { authorization: `Bearer ${held.tokens.read}` } });
        return res.json().verdicts.find((v: any) => v.key.model === 'held-model')?.clients.calls ?? 0;
      };
      await expect.poll(calls).toBe(5);
      const detail = (await held.app.inject({ method: 'GET', url: '/api/key?provider=openai&endpoint=chat&model=held-model&window=15m', headers: { authorization: `Bearer ${held.tokens.read}` } })).json();
      expect(detail.services.map((s: any) => [s.service, s.calls])).toEqual([['held-spans', 5]]);
      // Two requests, one tally: one stored window.
      const rows = sqlOf(held.app).prepare(`SELECT w.calls FROM window_events w JOIN keys k ON k.id = w.key_id WHERE k.model = ?`).all('held-model');
      expect(rows).toEqual([{ calls: 5 }]);
    } finally {
      await held.close();
    }
  });

  it('are stored when the collector stops before their hold has passed', async () => {
    const held = await makeApp({ ingest: { ...testConfig(':memory:').ingest, otlp_traces_hold_ms: 600_000 } });
    const m = spanMaker({ service: 'stopping', instance: 'i-1' });
    for (let i = 0; i < 3; i++) m.record({ attributes: { ...GENAI, 'gen_ai.request.model': 'stopping-model' }, durationMs: 100 });
    const res = await held.app.inject({
      method: 'POST', url: '/v1/traces', payload: m.body('protobuf'),
      headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${held.tokens.ingest}` },
    });
    await m.shutdown();
    expect(res.statusCode).toBe(200);
    await held.app.close();
    const db = new Database(held.dbPath, { readonly: true });
    const rows = db.prepare(`SELECT w.calls FROM window_events w JOIN keys k ON k.id = w.key_id WHERE k.model = ?`).all('stopping-model');
    db.close();
    await held.close();
    expect(rows).toEqual([{ calls: 3 }]);
  });
});
