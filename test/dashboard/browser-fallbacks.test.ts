import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifact, signIn, startBrowserAndCollector } from './browser-harness.ts';
import { ingestIncident, KEYS } from './seed.ts';
import type { TestCollector } from './server-harness.ts';

let browser: Browser;
let collector: TestCollector;
let page: Page;

beforeAll(async () => {
  ({ browser, collector } = await startBrowserAndCollector());
  await ingestIncident(collector);
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

describe('key detail: fallback health in a real browser', () => {
  it("shows each fallback's success and the largest share of the key it carried, as the API gives them", async () => {
    const k = KEYS.outage;
    const q = new URLSearchParams({ provider: k.provider, endpoint: k.endpoint, model: k.model, region: k.region, range: '1h' });
    await signIn(page, `${collector.url}/key?${q}`, collector.tokens.read);
    const api = await collector.get<{ fallbacks: Array<{ key: { model: string }; calls: number; success_share: number | null; max_share_of_primary: number | null }> }>(
      `/api/key?provider=${encodeURIComponent(k.provider)}&endpoint=chat&model=${encodeURIComponent(k.model)}&region=${k.region}&window=1h`,
    );
    expect(api.fallbacks.map((f) => f.key.model)).toEqual([KEYS.healthy.model]);
    const row = page.locator(`[data-testid="fallback-health"] tr[data-model="${KEYS.healthy.model}"]`);
    await expect.poll(() => row.count()).toBe(1);
    const cells = await row.locator('td').allTextContents();
    expect(cells[0]).toBe(api.fallbacks[0]!.calls.toLocaleString('en-US'));
    expect(cells[1]).toMatch(/%$/);
    expect(cells[2]).toMatch(/^100(\.0)?%/);
    await page.screenshot({ path: artifact('dashboard-fallback-health.png'), fullPage: true });
  });
});
