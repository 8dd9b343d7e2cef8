/**
 * The push client against a stand-in collector: protocol v1 batches, gzip, bearer
 * token, retries under the same batch id with backoff and Retry-After, a bounded
 * buffer that drops the oldest events when the collector stays down.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PushClient, type PushClientOptions } from '../../probe/push-client.ts';
import type { ProbeEvent } from '@breakerbox/protocol';
import { captureLogger } from './helpers.ts';
import { startReceiver } from './receiver.ts';

const TOKEN = 'bbx_ingest_test_token_0123456789abcdef';
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
});

function event(i: number): ProbeEvent {
  return {
    type: 'probe',
    ts: 1_700_000_000_000 + i,
    key: { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' },
    location: 'eu-west',
    outcome: 'ok',
    latency_ms: { connect: 3, ttfb: 40, total: 52 },
  };
}

function client(over: Partial<PushClientOptions> = {}) {
  const { log, lines } = captureLogger([TOKEN]);
  const push = new PushClient({
    url: receiver.url,
    token: TOKEN,
    location: 'eu-west',
    logger: log,
    batchSize: 100,
    initialBackoffMs: 5,
    maxBackoffMs: 20,
    requestTimeoutMs: 2_000,
    ...over,
  });
  return { push, lines };
}

describe('batches', () => {
  it('sends protocol v1 batches, gzip-compressed, with the bearer token and the probe source', async () => {
    const { push } = client();
    for (let i = 0; i < 3; i++) push.push(event(i));
    expect(await push.flush(5_000)).toBe(0);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got.gzipped).toBe(true);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(got.batch.batch_id).toMatch(/^probe-eu-west-/);
    expect(got.batch.batch_id.length).toBeLessThanOrEqual(128);
    expect(got.batch.source).toEqual({ service: 'probe', instance: 'eu-west', sdk: 'breakerbox-probe/0.1.0' });
    expect(got.batch.events).toEqual([event(0), event(1), event(2)]);
    expect(push.stats).toMatchObject({ accepted: 3, batches: 1, retries: 0 });
    await push.close(1_000);
  });

  it('splits the buffer into batches of batch_size, each with its own id', async () => {
    const { push } = client({ batchSize: 2 });
    for (let i = 0; i < 5; i++) push.push(event(i));
    await push.flush(5_000);
    expect(receiver.received.map((r) => r.batch.events.length)).toEqual([2, 2, 1]);
    expect(new Set(receiver.received.map((r) => r.batch.batch_id)).size).toBe(3);
    expect(receiver.received.flatMap((r) => r.batch.events)).toEqual([0, 1, 2, 3, 4].map(event));
    await push.close(1_000);
  });

  it('can send uncompressed JSON when gzip is off', async () => {
    const { push } = client({ gzip: false });
    push.push(event(1));
    await push.flush(5_000);
    expect(receiver.received[0]?.gzipped).toBe(false);
    expect(receiver.received[0]?.batch.events).toEqual([event(1)]);
    await push.close(1_000);
  });
});

describe('retries', () => {
  it('retries a 429 after its Retry-After under the same batch id, so it is never stored twice', async () => {
    receiver.answer({ status: 429, headers: { 'retry-after': '0.05' } });
    const { push, lines } = client();
    push.push(event(1));
    await push.flush(5_000);
    expect(receiver.received.map((r) => r.answer === 'destroy' ? 'destroy' : r.answer.status)).toEqual([429, 200]);
    expect(receiver.received[0]?.batch.batch_id).toBe(receiver.received[1]?.batch.batch_id);
    expect(push.stats).toMatchObject({ accepted: 1, retries: 1 });
    expect(lines.some((l) => l.includes('"retry_after_ms":50'))).toBe(true);
    await push.close(1_000);
  });

  it('retries 503s and dropped connections with backoff until the collector takes the batch', async () => {
    receiver.answer({ status: 503 }, 'destroy', { status: 502 });
    const { push } = client();
    push.push(event(1));
    push.push(event(2));
    await push.flush(5_000);
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((r) => r.batch.batch_id)).size).toBe(1);
    expect(push.stats).toMatchObject({ accepted: 2, retries: 3, dropped: 0 });
    await push.close(1_000);
  });

  it('drops a batch the collector refuses as invalid (400) instead of retrying it forever', async () => {
    receiver.answer({ status: 400, body: { error: { code: 'BB_ERR_INGEST_INVALID', message: 'events[0].ts: bad', path: '/events/0/ts' } } });
    const { push, lines } = client();
    push.push(event(1));
    await push.flush(5_000);
    expect(receiver.received).toHaveLength(1);
    expect(push.stats).toMatchObject({ rejected: 1, accepted: 0 });
    expect(lines.some((l) => l.includes('collector refused a batch') && l.includes('events[0].ts: bad'))).toBe(true);
    await push.close(1_000);
  });

  it('splits a batch the collector finds too large (413) and sends the halves', async () => {
    receiver.answer({ status: 413 });
    const { push } = client();
    for (let i = 0; i < 4; i++) push.push(event(i));
    await push.flush(5_000);
    expect(receiver.received.map((r) => r.batch.events.length)).toEqual([4, 2, 2]);
    expect(push.stats.accepted).toBe(4);
    await push.close(1_000);
  });

  it('never logs the token, even when the collector refuses it', async () => {
    receiver.answer({ status: 401, body: { error: { code: 'BB_ERR_AUTH', message: `unknown token ${TOKEN}` } } });
    const { push, lines } = client({ maxBackoffMs: 10 });
    push.push(event(1));
    await push.flush(5_000);
    expect(lines.some((l) => l.includes('refused the ingest token'))).toBe(true);
    expect(lines.join('\n')).not.toContain(TOKEN);
    await push.close(1_000);
  });
});

describe('collector outage', () => {
  it('keeps at most buffer_cap events, dropping the oldest, and delivers the rest once the collector is back', async () => {
    receiver.setFallback('destroy');
    const { push, lines } = client({ batchSize: 5, bufferCap: 20 });
    for (let i = 0; i < 50; i++) push.push(event(i));
    expect(await push.flush(50)).toBeLessThanOrEqual(20);
    expect(push.pending).toBeLessThanOrEqual(20);
    expect(push.stats.dropped).toBeGreaterThanOrEqual(30);
    expect(lines.some((l) => l.includes('push buffer full'))).toBe(true);

    receiver.setFallback({ status: 200 });
    expect(await push.flush(5_000)).toBe(0);
    const delivered = receiver.received.filter((r) => r.answer !== 'destroy').flatMap((r) => r.batch.events);
    expect(delivered.length + push.stats.dropped).toBe(50);
    // The newest buffer_cap events survive (the batch in flight among them); the oldest were dropped.
    const expected = Array.from({ length: 20 }, (_, i) => 30 + i).map(event);
    expect(delivered).toEqual(expected);
    await push.close(1_000);
  });

  it('gives up at the flush deadline and reports what was lost', async () => {
    receiver.setFallback({ status: 503 });
    const { push, lines } = client({ initialBackoffMs: 1_000, maxBackoffMs: 1_000 });
    push.push(event(1));
    expect(await push.close(100)).toBe(1);
    expect(lines.some((l) => l.includes('probe events lost') && l.includes('"lost":1'))).toBe(true);
  });
});
