/**
 * The board leads with incidents, shows an unhealthy prober location and a probe-only key,
 * in real Chromium, from issue 15's cases sent through the real ingest endpoint.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASES, PROBER_KEYS, verdictCases } from '../verdicts/issue-cases.ts';
import type { TestCollector as VerdictCollector } from '../verdicts/support.ts';
import { artifact, signIn, startBrowserAndCollector } from './browser-harness.ts';
import type { TestCollector } from './server-harness.ts';

let browser: Browser;
let collector: TestCollector;
let page: Page;

beforeAll(async () => {
  ({ browser, collector } = await startBrowserAndCollector());
  const clockNow = Date.now();
  const now = clockNow - (clockNow % 60_000);
  // The cases' sender only needs `send`: route it through this server's ingest endpoint.
  const sender = { send: (source: { service: string; instance: string }, events: never[]) => collector.ingest(events, source) } as unknown as VerdictCollector;
  await verdictCases(now, { prober: true }).send(sender);
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signIn(page, `${collector.url}/?range=15m`, collector.tokens.read);
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

describe('incidents on the board in a real browser', () => {
  it('leads with the incidents the API gives, before the alerts and the tiles', async () => {
    const api = await collector.get<{ incidents: { id: string; title: string }[] }>('/api/incidents?window=15m');
    const cards = page.getByTestId('incident');
    await expect.poll(() => cards.count()).toBe(api.incidents.length);
    expect(await cards.locator('.incident-title').allTextContents()).toEqual(api.incidents.map((i) => i.title));
    // Document order: incidents, then firing alerts, then the tiles.
    const order = await page.evaluate(() =>
      ['incidents', 'firing-alerts', 'board'].map((id) => document.querySelector(`[data-testid="${id}"]`)?.getBoundingClientRect().top ?? -1),
    );
    expect(order[0]).toBeGreaterThanOrEqual(0);
    expect(order[0]).toBeLessThan(order[2]!);
    await page.screenshot({ path: artifact('dashboard-incidents.png'), fullPage: true });
  });

  it('shows the unhealthy prober location as its own incident, and its probes as set aside on the tiles', async () => {
    const prober = page.locator('[data-testid="incident"][data-cause="prober"]');
    await expect.poll(() => prober.count()).toBe(1);
    expect(await prober.textContent()).toContain('ap-south: 6 keys, prober unhealthy');
    expect(await prober.textContent()).toContain('Prober unhealthy: its probes are set aside');
    const tile = page.locator(`[data-testid="key-tile"][data-model="${PROBER_KEYS[0]!.model}"]`);
    expect(await tile.getAttribute('data-verdict')).toBe('healthy');
    expect(await tile.locator('[data-set-aside="true"]').textContent()).toContain('ap-south failing (set aside: unhealthy prober)');
  });

  it('shows a probe-only key with its verdict and says no client traffic was seen', async () => {
    const tile = page.locator(`[data-testid="key-tile"][data-model="${CASES.fallback.model}"]`);
    await expect.poll(() => tile.count()).toBe(1);
    expect(await tile.getAttribute('data-verdict')).toBe('provider_outage');
    expect(await tile.getAttribute('data-probe-only')).toBe('true');
    expect(await tile.getByTestId('probe-only').textContent()).toContain('No client traffic in this range');
  });

  it('flags the unhealthy location on the probes view', async () => {
    await page.getByRole('link', { name: 'Probes' }).click();
    const flag = page.getByTestId('location-unhealthy');
    await expect.poll(() => flag.count()).toBe(1);
    expect(await flag.textContent()).toContain('prober location ap-south is unhealthy: 6 of 6 keys failing across 4 providers');
  });
});
