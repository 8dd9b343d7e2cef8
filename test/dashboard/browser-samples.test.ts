/**
 * The key page's "Failed calls" table in a real browser: the samples the collector stored
 * are listed newest first with their request ids, filterable by class and instance, and a
 * request id can be copied.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallSample } from '@breakerbox/protocol';
import { artifact, signIn, startBrowserAndCollector } from './browser-harness.ts';
import { KEYS, window } from './seed.ts';
import type { TestCollector } from './server-harness.ts';

let browser: Browser;
let collector: TestCollector;
let page: Page;
const key = KEYS.outage;

beforeAll(async () => {
  ({ browser, collector } = await startBrowserAndCollector());
  const now = Date.now();
  const w = (instance: string, agoMin: number, samples: CallSample[]) => collector.ingest([{ ...window(key, agoMin, now, { calls: 20, errors: { server: 6, timeout: 2 } }), samples }], { service: 'drafts', instance });
  const s = (ts: number, id: string, over: Partial<CallSample> = {}): CallSample => ({
    ts, outcome: 'error', error_class: 'server', status: 503, error_type: 'server_error', message: 'The engine is currently overloaded', upstream_request_id: id, attempt: 1, duration_ms: 640, ...over,
  });
  const t = now - 5 * 60_000;
  await w('pod-1', 5, [s(t - 40_000, 'req_aaa111'), s(t - 30_000, 'req_bbb222', { error_class: 'timeout', status: undefined, error_type: undefined, message: undefined, sdk_code: 'BB_ERR_SDK_TIMEOUT', upstream_request_id: undefined })]);
  await w('pod-3', 3, [s(now - 3 * 60_000 - 20_000, 'req_ccc333')]);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: collector.url });
  page = await context.newPage();
  await signIn(page, `${collector.url}/?range=1h`, collector.tokens.read);
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

describe('failed calls on the key page', () => {
  it('lists the samples newest first with request ids, filters them, and copies an id', async () => {
    const q = new URLSearchParams({ provider: key.provider, endpoint: key.endpoint, model: key.model, region: key.region, range: '1h' });
    await page.goto(`${collector.url}/key?${q}`);
    const table = page.getByTestId('failed-calls');
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    const text = await rows.allTextContents();
    expect(text[0]).toContain('req_ccc333');
    expect(text[0]).toContain('drafts/pod-3');
    expect(text[1]).toContain('timeout');
    expect(text[2]).toContain('req_aaa111');
    expect(text[2]).toContain('503');

    await page.getByRole('search', { name: 'Filter failed calls' }).getByLabel('Class').selectOption('server');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByRole('search', { name: 'Filter failed calls' }).getByLabel('Instance').selectOption('pod-1');
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('req_aaa111')]);

    await page.getByRole('button', { name: 'Copy request id req_aaa111' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('req_aaa111');
    await page.screenshot({ path: artifact('dashboard-failed-calls.png'), fullPage: true });
  });
});
