import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeApp, rowCounts, testConfig } from '../server/helpers.ts';
import { WireReader } from '../../server/otlp/wire-reader.ts';
import { bodyMaker } from './otlp-bodies.ts';

const ATTRS = { 'gen_ai.provider.name': 'openai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' };
const PROTOBUF = 'application/x-protobuf';

/** Reads a protobuf `google.rpc.Status` or `Export*ServiceResponse.partial_success`: {field: value}. */
function fields(bytes: Buffer): Record<number, number | string | Record<number, number | string>> {
  const out: Record<number, any> = {};
  const r = new WireReader(bytes);
  while (r.more()) {
    const tag = r.tag();
    if ((tag & 7) === 0) out[tag >>> 3] = r.varint();
    else if (tag >>> 3 === 1 && (tag & 7) === 2 && bytes[0] === 0x0a) out[1] = fields(Buffer.from(r.buf.subarray(...r.span())));
    else out[tag >>> 3] = r.string();
  }
  return out;
}

let t: Awaited<ReturnType<typeof makeApp>>;
beforeAll(async () => {
  t = await makeApp();
});
afterAll(async () => {
  await t.close();
});

const post = (url: string, payload: string | Buffer, headers: Record<string, string> = {}, token: string | null = t.tokens.ingest) =>
  t.app.inject({
    method: 'POST', url, payload,
    headers: { 'content-type': PROTOBUF, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });

describe('OTLP/HTTP receivers', () => {
  let before: Record<string, number>;
  beforeEach(() => {
    before = rowCounts(t.app);
  });
  const nothingStored = () => expect(rowCounts(t.app)).toEqual(before);
  let makers: ReturnType<typeof bodyMaker>[] = [];
  afterEach(async () => {
    await Promise.all(makers.map((m) => m.shutdown()));
    makers = [];
  });
  const maker = (service = 'receiver-test') => {
    const m = bodyMaker({ service, instance: 'i-1' });
    makers.push(m);
    return m;
  };

  it('answers an empty export with an empty success in the encoding it was sent in', async () => {
    const proto = await post('/v1/metrics', Buffer.alloc(0));
    expect(proto.statusCode).toBe(200);
    expect(proto.headers['content-type']).toBe(PROTOBUF);
    expect(proto.rawPayload.length).toBe(0);
    const json = await post('/v1/logs', '{}', { 'content-type': 'application/json' });
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.json()).toEqual({});
    nothingStored();
  });

  it('stores a gzip-compressed protobuf export, and a retried identical one only once', async () => {
    const m = maker('gzip-service');
    for (let i = 0; i < 5; i++) m.duration.record(0.2, ATTRS);
    const body = gzipSync(await m.body('protobuf'));
    const first = await post('/v1/metrics', body, { 'content-encoding': 'gzip' });
    expect(first.statusCode).toBe(200);
    expect(first.rawPayload.length).toBe(0); // full success: partial_success left unset
    const stored = rowCounts(t.app);
    expect(stored.window_events).toBe(before.window_events! + 1);
    const again = await post('/v1/metrics', body, { 'content-encoding': 'gzip' });
    expect(again.statusCode).toBe(200);
    expect(rowCounts(t.app)).toEqual(stored);
  });

  it('refuses data points without a key or outside the retention in partial_success, and stores the rest', async () => {
    const m = maker('partial-service');
    for (let i = 0; i < 4; i++) m.duration.record(0.2, ATTRS);
    m.duration.record(0.2, { 'gen_ai.provider.name': 'openai', 'gen_ai.operation.name': 'chat' }); // no model
    m.duration.record(0.2, { 'gen_ai.request.model': 'x', 'gen_ai.operation.name': 'chat' }); // no provider
    const res = await post('/v1/metrics', await m.body('protobuf'));
    expect(res.statusCode).toBe(200);
    const answer = fields(res.rawPayload) as { 1: Record<number, number | string> };
    expect(answer[1][1]).toBe(2);
    expect(answer[1][2]).toMatch(/no model/);
    expect(answer[1][2]).toMatch(/no provider/);
    expect(rowCounts(t.app).window_events).toBe(before.window_events! + 1);

    const old = { resourceMetrics: [{ resource: {}, scopeMetrics: [{ metrics: [{ name: 'gen_ai.client.operation.duration', unit: 's', histogram: {
      aggregationTemporality: 1,
      dataPoints: [{ attributes: [{ key: 'gen_ai.provider.name', value: { stringValue: 'openai' } }, { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }, { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } }],
        startTimeUnixNano: '1000000000000000000', timeUnixNano: '1000000060000000000', count: '3', sum: 1.5, bucketCounts: ['1', '2'], explicitBounds: [0.5] }],
    } }] }] }] };
    const refused = await post('/v1/metrics', JSON.stringify(old), { 'content-type': 'application/json' });
    expect(refused.statusCode).toBe(200);
    expect(refused.json().partialSuccess).toEqual({ rejectedDataPoints: '1', errorMessage: expect.stringMatching(/outside the accepted span/) });
  });

  it('ignores metrics it does not map without refusing them', async () => {
    const m = maker('other-metrics');
    m.meter.createCounter('http.client.requests').add(3);
    const res = await post('/v1/metrics', await m.body('json'), { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({});
    nothingStored();
  });

  describe('answers bad bodies cleanly, with a google.rpc.Status, and stores nothing', () => {
    it('a body that is not protobuf → 400', async () => {
      const res = await post('/v1/metrics', Buffer.from([0x0a, 0xff, 0x01, 0x02]));
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe(PROTOBUF);
      const status = fields(res.rawPayload);
      expect(status[1]).toBe(3); // INVALID_ARGUMENT
      expect(status[2]).toMatch(/^BB_ERR_INGEST_MALFORMED_PROTOBUF: .*truncated/);
      nothingStored();
    });

    it('an enum sent as its name in JSON → 400 naming the field', async () => {
      const body = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'gen_ai.client.operation.duration', histogram: { aggregationTemporality: 'AGGREGATION_TEMPORALITY_DELTA', dataPoints: [] } }] }] }] };
      const res = await post('/v1/metrics', JSON.stringify(body), { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(400);
      const answer = res.json();
      expect(answer.code).toBe(3);
      expect(answer.error).toEqual({
        code: 'BB_ERR_INGEST_INVALID',
        message: expect.stringMatching(/integers/),
        path: '/resourceMetrics/0/scopeMetrics/0/metrics/0/histogram/aggregationTemporality',
      });
      nothingStored();
    });

    it('a count that is not an integer → 400', async () => {
      const body = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: 'soon' }] }] }] };
      const res = await post('/v1/logs', JSON.stringify(body), { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.path).toBe('/resourceLogs/0/scopeLogs/0/logRecords/0/timeUnixNano');
      nothingStored();
    });

    it('malformed JSON → 400', async () => {
      const res = await post('/v1/metrics', '{"resourceMetrics": [', { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('BB_ERR_INGEST_MALFORMED_JSON');
      nothingStored();
    });

    it('another content type → 415', async () => {
      const res = await post('/v1/metrics', 'x', { 'content-type': 'text/plain' });
      expect(res.statusCode).toBe(415);
      expect(res.json().error.code).toBe('BB_ERR_INGEST_UNSUPPORTED_TYPE');
      nothingStored();
    });

    it('a gzip bomb → 413, bad gzip → 400', async () => {
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x0a));
      expect((await post('/v1/metrics', bomb, { 'content-encoding': 'gzip' })).statusCode).toBe(413);
      const bad = await post('/v1/metrics', Buffer.from('not gzip'), { 'content-encoding': 'gzip' });
      expect(bad.statusCode).toBe(400);
      expect(fields(bad.rawPayload)[2]).toMatch(/^BB_ERR_INGEST_BAD_ENCODING/);
      nothingStored();
    });

    it('no token → 401, a read-only token → 403', async () => {
      const none = await post('/v1/metrics', Buffer.alloc(0), {}, null);
      expect(none.statusCode).toBe(401);
      expect(fields(none.rawPayload)).toEqual({ 1: 16, 2: expect.stringMatching(/^BB_ERR_AUTH_MISSING/) });
      const read = await post('/v1/logs', '{}', { 'content-type': 'application/json' }, t.tokens.read);
      expect(read.statusCode).toBe(403);
      expect(read.json().error.code).toBe('BB_ERR_AUTH_FORBIDDEN');
      nothingStored();
    });
  });

  it('shares the ingest rate of a token with /v1/telemetry: 429 with Retry-After', async () => {
    const base = testConfig(':memory:').ingest;
    const limited = await makeApp({ ingest: { ...base, rate_limit: { per_second: 1, burst: 2 } } });
    try {
      const send = (url: string) =>
        limited.app.inject({ method: 'POST', url, payload: '{}', headers: { 'content-type': 'application/json', authorization: `Bearer ${limited.tokens.ingest}` } });
      expect((await send('/v1/metrics')).statusCode).toBe(200);
      expect((await send('/v1/logs')).statusCode).toBe(200);
      const refused = await send('/v1/metrics');
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.json()).toMatchObject({ code: 8, error: { code: 'BB_ERR_INGEST_RATE_LIMITED' } });
    } finally {
      await limited.close();
    }
  });
});
