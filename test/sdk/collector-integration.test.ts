/**
 * The one integration test against the real collector (`server/app.ts`): the SDK's own
 * batches — transitions, config, window — are accepted as valid protocol v1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBreakerbox } from '../../sdk/index.ts';
import { startListeningCollector, type ListeningCollector } from '../support/listening-collector.ts';

let collector: ListeningCollector;
let url: string;
let token: string;
let readToken: string;

beforeAll(async () => {
  collector = await startListeningCollector('sdk');
  ({ url, token, readToken } = collector);
});
afterAll(async () => {
  await collector?.close();
});

describe('SDK → real collector', () => {
  it('has every batch accepted, and the key shows up with its model id intact', async () => {
    const key = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B:free@v2', region: 'us-east' };
    const bb = createBreakerbox({ defaults: { breaker: { minCalls: 2 }, retry: { maxAttempts: 1 } }, telemetry: { url, token, service: 'sdk-test', intervalMs: 60_000 } });
    const errors: unknown[] = [];
    bb.onTelemetryError((e) => errors.push(e));
    await bb.execute(key, async () => 'ok');
    for (let i = 0; i < 3; i++) await bb.execute(key, () => Promise.reject(Object.assign(new Error('x'), { status: 500 }))).catch(() => undefined);
    await bb.close(2_000);
    expect(errors).toEqual([]);
    expect(bb.telemetryStats()).toMatchObject({ dropped: 0, buffered: 0 });
    expect(bb.telemetryStats()!.sent).toBeGreaterThanOrEqual(4); // first state, config, open transition, window
    const res = await fetch(`${url}/api/keys?window=1h`, { headers: { authorization: `Bearer ${readToken}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { keys: Array<{ key: typeof key; state: { summary: string } }> };
    const found = body.keys.find((k) => k.key.model === key.model);
    expect(found?.key).toEqual(key);
    expect(found?.state.summary).toBe('open');
  });
});
