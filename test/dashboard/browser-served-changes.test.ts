/**
 * The key page shows a model swapped behind its name (issue 39) in a real browser: a change of
 * the probes' `system_fingerprint` is marked on the verdict strip's time axis and listed in
 * words with its time, from and to.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifact, signIn, startBrowserAndCollector } from './browser-harness.ts';
import { KEYS, probe, window } from './seed.ts';
import type { TestCollector } from './server-harness.ts';

let browser: Browser;
let collector: TestCollector;
let page: Page;
const key = KEYS.healthy;

beforeAll(async () => {
  ({ browser, collector } = await startBrowserAndCollector());
  const now = Date.now();
  const served = (agoMin: number, fp: string) => ({ ...probe(key, agoMin, now, 'eu-west', true), model_served: 'gpt-4o-mini-2024-07-18', system_fingerprint: fp });
  // fp_old until 20 minutes ago, fp_new since (newest ingested first: event time decides).
  const probes = Array.from({ length: 40 }, (_, i) => served(i, i < 20 ? 'fp_new' : 'fp_old'));
  await collector.ingest(probes, { service: 'prober', instance: 'eu' });
  await collector.ingest(Array.from({ length: 40 }, (_, i) => window(key, i, now, { calls: 20 })));
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  await signIn(page, `${collector.url}/?range=1h`, collector.tokens.read);
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

describe('served-model changes on the key page', () => {
  it('marks the change on the time axis and lists it with time, from and to', async () => {
    const q = new URLSearchParams({ provider: key.provider, endpoint: key.endpoint, model: key.model, range: '1h' });
    await page.goto(`${collector.url}/key?${q}`);
    const list = page.getByTestId('served-changes').locator('li');
    await expect.poll(() => list.count(), { timeout: 10_000 }).toBe(1);
    const text = (await list.allTextContents())[0]!;
    expect(text).toContain('served model gpt-4o-mini-2024-07-18 (fp_old) → gpt-4o-mini-2024-07-18 (fp_new) (probe from eu-west)');
    const mark = page.locator('.timeline-strip .timeline-swap');
    expect(await mark.count()).toBe(1);
    expect(await mark.getAttribute('title')).toBe(text);
    // On the axis: the change is 19-20 minutes before the end of a 1 h window, about two thirds along.
    const left = parseFloat((await mark.getAttribute('style'))!.replace(/.*left:\s*([\d.]+)%.*/, '$1'));
    expect(left).toBeGreaterThan(60);
    expect(left).toBeLessThan(72);
    await page.screenshot({ path: artifact('dashboard-served-changes.png'), fullPage: true });
  });
});
