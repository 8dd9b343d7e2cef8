/**
 * `window.samples` on the collector: optional (a window without it is unchanged), validated
 * field by field, size-capped; a bad sample is refused with a 400 naming the field, and a
 * flood of samples is bounded per key and minute in storage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SAMPLE_MESSAGE_CHARS, MAX_WINDOW_SAMPLES, type CallSample } from '@breakerbox/protocol';
import { MAX_SAMPLES_PER_KEY_MINUTE } from '../../server/storage/sample-rows.ts';
import { batch, makeApp, windowEvent } from '../server/helpers.ts';

let t: Awaited<ReturnType<typeof makeApp>>;
beforeAll(async () => {
  t = await makeApp();
});
afterAll(async () => {
  await t.close();
});

const post = (body: unknown) =>
  t.app.inject({
    method: 'POST', url: '/v1/telemetry',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
    payload: JSON.stringify(body),
  });

const sample = (ts: number, over: Partial<CallSample> = {}): CallSample => ({
  ts, outcome: 'error', error_class: 'server', status: 503, error_type: 'server_error', upstream_request_id: 'req_1', attempt: 1, duration_ms: 812, ...over,
});

function windowWith(samples: unknown[], model = 'gpt-4o'): ReturnType<typeof windowEvent> {
  const w = windowEvent({ key: { provider: 'openai', endpoint: 'chat', model } });
  return { ...w, samples } as ReturnType<typeof windowEvent>;
}

describe('window.samples at ingest', () => {
  it('accepts a window with samples and one without', async () => {
    const w = windowEvent();
    expect((await post(batch([windowWith([sample(w.end - 1_000)]), w]))).statusCode).toBe(200);
  });

  it.each([
    ['an unknown outcome', { outcome: 'broken' }, '/events/0/samples/0/outcome'],
    ['a class outside the taxonomy', { error_class: 'overloaded' }, '/events/0/samples/0/error_class'],
    ['a status that is not HTTP', { status: 42 }, '/events/0/samples/0/status'],
    ['attempt 0', { attempt: 0 }, '/events/0/samples/0/attempt'],
    ['a failover level past 4', { level: 5 }, '/events/0/samples/0/level'],
    ['a message over the cap', { message: 'x'.repeat(MAX_SAMPLE_MESSAGE_CHARS + 1) }, '/events/0/samples/0/message'],
    ['an over-long request id', { upstream_request_id: 'r'.repeat(201) }, '/events/0/samples/0/upstream_request_id'],
  ])('refuses %s with a 400 naming the field', async (_name, over, path) => {
    const w = windowEvent();
    const res = await post(batch([windowWith([sample(w.end, over as Partial<CallSample>)])]));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'BB_ERR_INGEST_INVALID', path });
  });

  it('refuses more samples than the cap, and samples whose JSON exceeds the byte cap', async () => {
    const w = windowEvent();
    const many = await post(batch([windowWith(Array.from({ length: MAX_WINDOW_SAMPLES + 1 }, () => sample(w.end)))]));
    expect(many.statusCode).toBe(400);
    expect(many.json().error.path).toBe('/events/0/samples');
    const fat = Array.from({ length: MAX_WINDOW_SAMPLES }, () => sample(w.end, { message: 'é'.repeat(MAX_SAMPLE_MESSAGE_CHARS), model_served: 'm'.repeat(300) }));
    const big = await post(batch([windowWith(fat)]));
    expect(big.statusCode).toBe(400);
    expect(big.json().error).toMatchObject({ path: '/events/0/samples', message: expect.stringContaining('bytes') });
    // Unknown fields are allowed (forward compatibility) but count towards the byte cap.
    const padded = await post(batch([windowWith([{ ...sample(w.end), future: Array.from({ length: 2_000 }, (_, i) => i) }])]));
    expect(padded.statusCode).toBe(400);
    expect(padded.json().error.path).toBe('/events/0/samples');
  });

  it('refuses a sample timestamp in the future beyond the allowed skew', async () => {
    const res = await post(batch([windowWith([sample(Date.now() + 3_600_000)])]));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.path).toBe('/events/0/samples/0/ts');
  });

  it('stores at most the per-key-minute bound however many windows carry samples, and reads them newest first', async () => {
    const model = 'flood-model';
    const w = windowEvent();
    const minute = w.end - (w.end % 60_000);
    for (let b = 0; b < 6; b++) {
      const samples = Array.from({ length: 5 }, (_, i) => sample(minute + b * 5 + i, { upstream_request_id: `req_${b}_${i}` }));
      expect((await post(batch([windowWith(samples, model)], { service: 'svc', instance: `pod-${b}` }))).statusCode).toBe(200);
    }
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/key/samples?provider=openai&endpoint=chat&model=${model}&window=1h&limit=500`,
      headers: { authorization: `Bearer ${t.tokens.read}` },
    });
    expect(res.statusCode).toBe(200);
    const rows = res.json().samples as { instance: string; sample: CallSample }[];
    expect(rows).toHaveLength(MAX_SAMPLES_PER_KEY_MINUTE);
    expect(rows[0]!.sample.upstream_request_id).toBe('req_3_4');
    expect(rows.at(-1)!.sample.upstream_request_id).toBe('req_0_0');
  });
});

describe('window.deprecation_signal at ingest', () => {
  it('accepts a window with the signal, and refuses one whose figures cannot be true or whose dates are not ms, naming the field', async () => {
    const w = windowEvent({ key: { provider: 'openai', endpoint: 'chat', model: 'gpt-signal' } });
    expect((await post(batch([{ ...w, deprecation_signal: { responses: 1, sunset_at: 1_800_000_000_000 } }]))).statusCode).toBe(200);
    const tooMany = await post(batch([{ ...w, deprecation_signal: { responses: w.calls + 1, deprecation_at: 1_767_225_600_000 } }]));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ error: { code: 'BB_ERR_INGEST_INVALID', path: '/events/0/deprecation_signal/responses' } });
    const notMs = await post(batch([{ ...w, deprecation_signal: { responses: 1, sunset_at: 'Mon, 11 Jan 2027 00:00:00 GMT' as unknown as number } }]));
    expect(notMs.statusCode).toBe(400);
    expect(notMs.json()).toMatchObject({ error: { path: '/events/0/deprecation_signal/sunset_at' } });
  });
});
