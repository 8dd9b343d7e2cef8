import { afterEach, describe, expect, it } from 'vitest';
import { appWithLogs, batch, oneOfEach } from './helpers.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('logs', () => {
  it('are JSON lines that never carry a token, an Authorization header or a request body', async () => {
    const { app, logs, close } = await appWithLogs('trace');
    cleanups.push(close);
    const { secret } = await app.storage.tokens.create('t', ['ingest']);
    const body = batch(oneOfEach(), { service: 'secret-service-name', instance: 'pod-1' });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${secret}` };
    expect((await app.inject({ method: 'POST', url: '/v1/telemetry', headers, payload: JSON.stringify(body) })).statusCode).toBe(200);
    const bad = { ...body, batch_id: 'other', events: [{ ...oneOfEach()[0]!, calls: -1 }] };
    expect((await app.inject({ method: 'POST', url: '/v1/telemetry', headers, payload: JSON.stringify(bad) })).statusCode).toBe(400);
    const wrong = await app.inject({ method: 'POST', url: '/v1/telemetry', headers: { ...headers, authorization: 'Bearer bbx_wrong-secret-value' }, payload: '{}' });
    expect(wrong.statusCode).toBe(401);

    const text = logs();
    const lines = text.trim().split('\n');
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(text).toContain('/v1/telemetry');
    expect(text).not.toContain(secret);
    expect(text).not.toContain('bbx_wrong-secret-value');
    expect(text).not.toContain('secret-service-name');
    expect(text).not.toContain('Llama-3.3');
  });
});
