/**
 * The shadow comparison on the key page, in a real browser: a primary key's mirrored
 * requests, as the collector stored the SDK's `shadow` windows, shown side by side with
 * sample sizes, the significant truncation difference, the projected monthly bill and what
 * is not yet significant.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey, ShadowEvent, ShadowSide } from '@breakerbox/protocol';
import { artifact, signIn, startBrowserAndCollector } from './browser-harness.ts';
import { window } from './seed.ts';
import type { TestCollector } from './server-harness.ts';

let browser: Browser;
let collector: TestCollector;
let page: Page;
const key: BreakerKey = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o' };
const BOUNDS = [100, 1000];

function side(ok: number, errors: ShadowSide['errors'], cost: number, latency: number[]): ShadowSide {
  return { ok, errors, refusals: 0, latency_ms: { bounds: BOUNDS, counts: latency }, output_tokens: ok * 50, cost_usd: cost };
}

beforeAll(async () => {
  ({ browser, collector } = await startBrowserAndCollector());
  const now = Date.now();
  // The primary's volume: 10 windows of 100 calls at $0.0004 a call in the last hour.
  await collector.ingest(Array.from({ length: 10 }, (_, i) => window(key, 5 + i * 5, now, { calls: 100 })), { service: 'drafts', instance: 'pod-1' });
  // 60 mirrored requests: the candidate truncates 15 and costs 3.1 times as much per call.
  const shadow: ShadowEvent = {
    type: 'shadow', start: now - 10 * 60_000, end: now - 5 * 60_000, key, candidate: { ...key, model: 'gpt-4.1' }, pairs: 60, dropped: 2,
    // The operation's validator passed every primary answer and 30 of the candidate's 45 whole ones.
    primary: { ...side(60, {}, 60 * 0.0004, [50, 10, 0]), validation: { checked: 60, passed: 60 } },
    shadow: { ...side(45, { truncated: 15 }, 60 * 0.0004 * 3.1, [10, 40, 10]), validation: { checked: 45, passed: 30 } },
  };
  await collector.ingest([shadow], { service: 'drafts', instance: 'pod-1' });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signIn(page, `${collector.url}/?range=1h`, collector.tokens.read);
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

describe('shadow comparison on the key page', () => {
  it('shows both sides with sample sizes, the significant truncation, the projected bill and what is not yet significant', async () => {
    const q = new URLSearchParams({ provider: key.provider, endpoint: key.endpoint, model: key.model, range: '1h' });
    await page.goto(`${collector.url}/key?${q}`);
    const pair = page.getByTestId('shadow-pair');
    await expect.poll(() => pair.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => pair.locator('h3').textContent()).toContain('gpt-4o → gpt-4.1');
    // $0.4 an hour is $288 a month; ×3.1 is $892.80: +$605.
    expect(await page.getByTestId('shadow-bill').textContent()).toContain('switching raises the bill by ×3.1, +$605 / month');
    const table = page.getByRole('table', { name: 'Shadow comparison gpt-4o → gpt-4.1' });
    const truncation = table.getByRole('row', { name: /truncation share/ });
    const cells = await truncation.locator('td').allTextContents();
    expect(cells[0]).toMatch(/^0% \(0%–.*n 60\)$/);
    expect(cells[1]).toBe('25% (16%–37%, n 60)'); // Wilson 95 %: 15 of 60
    expect(cells[2]).toMatch(/^significant \(z 4\.1/);
    const validation = await table.getByRole('row', { name: /validation pass share/ }).locator('td').allTextContents();
    expect(validation[0]).toMatch(/^100% \(.*n 60\)$/);
    expect(validation[1]).toMatch(/^67% \(.*n 45\)$/);
    expect(validation[2]).toMatch(/^significant \(z /);
    expect(await table.getByRole('row', { name: /cost per call/ }).locator('td').allTextContents()).toEqual(['$0.00040', '$0.0012', '–']);
    expect(await pair.textContent()).toContain('60 mirrored requests, 2 shed under load');
    const caveats = page.getByRole('list', { name: 'Not yet significant' });
    expect(await caveats.textContent()).toContain('latency: 60 mirrored requests, p95 needs 100');
    await page.screenshot({ path: artifact('dashboard-shadow-comparison.png'), fullPage: true });
  });

  it('draws nothing for a key without shadow traffic', async () => {
    const q = new URLSearchParams({ provider: 'openai', endpoint: 'chat', model: 'gpt-4.1', range: '1h' });
    await page.goto(`${collector.url}/key?${q}`);
    await expect.poll(() => page.locator('#key-title').textContent(), { timeout: 10_000 }).toBe('gpt-4.1');
    expect(await page.getByTestId('shadow-pair').count()).toBe(0);
  });
});
