import { copyFileSync, renameSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { batch, makeApp, windowEvent } from './helpers.ts';
import { sqlOf } from '../support/sql.ts';

type TestApp = Awaited<ReturnType<typeof makeApp>>;
let t: TestApp;
afterEach(async () => {
  vi.useRealTimers();
  await t.close();
});

const post = (events = [windowEvent()]) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/telemetry',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.tokens.ingest}` },
    payload: JSON.stringify(batch(events)),
  });
const keyN = (n: number): BreakerKey => ({ provider: 'p', endpoint: 'chat', model: `model-${n}-${'x'.repeat(200)}` });
const manyKeys = (from: number) => Array.from({ length: 400 }, (_, i) => windowEvent({ key: keyN(from + i) }));

describe('storage faults in a running collector', () => {
  it('answers 503 with Retry-After while the disk is full, turns /readyz red, and recovers on its own', async () => {
    t = await makeApp();
    expect((await post()).statusCode).toBe(200);
    const pages = sqlOf(t.app).pragma('page_count', { simple: true }) as number;
    // SQLite answers SQLITE_FULL exactly as on a full disk once the file may not grow.
    sqlOf(t.app).pragma(`max_page_count = ${pages}`);
    vi.useFakeTimers({ toFake: ['Date'] });

    const full = await post(manyKeys(0));
    expect(full.statusCode).toBe(503);
    expect(full.json().error.code).toBe('BB_ERR_STORE_UNAVAILABLE');
    expect(Number(full.headers['retry-after'])).toBe(t.app.config.storage.retry_after_s);
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().reason).toContain('is full');
    // Until Retry-After has passed, batches are refused before their body is even read.
    expect((await post()).statusCode).toBe(503);

    sqlOf(t.app).pragma('max_page_count = 1073741823');
    vi.setSystemTime(Date.now() + t.app.config.storage.retry_after_s * 1000);
    expect((await post(manyKeys(0))).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    expect(t.app.ingestLimits.snapshot().storage_unavailable).toBe(2);
  });

  it('notices the database file moved away, refuses ingest with 503, and clears when it is back', async () => {
    t = await makeApp();
    expect((await post()).statusCode).toBe(200);
    renameSync(t.dbPath, `${t.dbPath}.away`);
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().reason).toContain('was deleted');
    const refused = await post();
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBeDefined();
    renameSync(`${t.dbPath}.away`, t.dbPath);
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    expect((await post()).statusCode).toBe(200);
  });

  it('notices the database file replaced by another file', async () => {
    t = await makeApp();
    copyFileSync(t.dbPath, `${t.dbPath}.copy`);
    renameSync(`${t.dbPath}.copy`, t.dbPath);
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().reason).toContain('replaced');
    expect((await post()).statusCode).toBe(503);
  });
});
