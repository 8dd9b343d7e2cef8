import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifact, signIn, startBrowserAndCollector } from './browser-harness.ts';
import { ingestIncident, KEYS } from './seed.ts';
import type { TestCollector } from './server-harness.ts';

interface VerdictsAnswer {
  verdicts: { key: { model: string }; verdict: string; evidence: string[] }[];
}

const WORDS: Record<string, string> = {
  provider_outage: 'Provider outage',
  self_inflicted: 'Self-inflicted',
  provider_degraded: 'Provider degraded',
  healthy: 'Healthy',
  insufficient_data: 'Insufficient data',
};

let browser: Browser;
let collector: TestCollector;
let page: Page;

beforeAll(async () => {
  ({ browser, collector } = await startBrowserAndCollector());
  await ingestIncident(collector);
  page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  await signIn(page, `${collector.url}/?range=1h`, collector.tokens.read);
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

/** Every `d` path of a chart's series, as the number of points each one draws. */
async function pointsPerSeries(chart: string): Promise<number[]> {
  return page.locator(`[data-chart="${chart}"] svg path.recharts-line-curve, [data-chart="${chart}"] svg path.recharts-area-area`).evaluateAll((paths) =>
    paths.map((p) => (p.getAttribute('d') ?? '').match(/[ML]/g)?.length ?? 0),
  );
}

describe('the board and key detail in a real browser', () => {
  it('shows every seeded key with the verdict the API gives, worst first', async () => {
    const api = await collector.get<VerdictsAnswer>('/api/verdicts?window=1h');
    expect(api.verdicts.map((v) => v.key.model).sort()).toEqual(Object.values(KEYS).map((k) => k.model).sort());
    const tiles = page.getByTestId('key-tile');
    await expect.poll(() => tiles.count()).toBe(4);
    for (const v of api.verdicts) {
      const tile = page.locator(`[data-testid="key-tile"][data-model="${v.key.model}"]`);
      expect(await tile.getAttribute('data-verdict'), v.key.model).toBe(v.verdict);
      expect(await tile.textContent()).toContain(WORDS[v.verdict]);
    }
    expect(await tiles.first().getAttribute('data-verdict')).toBe(api.verdicts[0]!.verdict);
    expect(await page.getByTestId('updated-at').textContent()).toMatch(/^Updated /);
    // No service forwarded anything unprotected yet: no passthrough line.
    expect(await page.getByTestId('passthrough').count()).toBe(0);
    await page.screenshot({ path: artifact('dashboard-board.png'), fullPage: true });
  });

  it('keeps the range and filters in the URL, so a pasted link opens the same picture', async () => {
    const other = await browser.newContext();
    const pasted = await other.newPage();
    try {
      await signIn(pasted, `${collector.url}/?range=6h&verdict=provider_outage`, collector.tokens.read);
      await expect.poll(() => pasted.getByTestId('key-tile').count()).toBe(1);
      expect(await pasted.getByTestId('key-tile').getAttribute('data-model')).toBe(KEYS.outage.model);
      expect(await pasted.getByRole('button', { name: '6h' }).getAttribute('aria-pressed')).toBe('true');
      await pasted.getByRole('button', { name: '15m' }).click();
      await pasted.getByLabel('Model').fill('haiku');
      await pasted.getByRole('button', { name: /self-inflicted/ }).click();
      await expect.poll(() => pasted.getByTestId('key-tile').count()).toBe(1);
      const url = new URL(pasted.url());
      expect(Object.fromEntries(url.searchParams)).toEqual({ range: '15m', model: 'haiku', verdict: 'self_inflicted' });
    } finally {
      await other.close();
    }
  });

  it('moves between tiles with the arrow keys, opens one with Enter, and comes back with Back', async () => {
    const links = page.locator('[data-testid="key-tile"] a.tile-link');
    await links.first().focus();
    await page.keyboard.press('ArrowDown');
    const second = await page.getByTestId('key-tile').nth(1).getAttribute('data-model');
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="key-tile"]')?.getAttribute('data-model'))).toBe(second);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(second);
    await page.goBack();
    await expect.poll(() => page.getByTestId('key-tile').count()).toBe(4);
  });

  it('opens the detail page of a key whose model id contains "/", also from a pasted link', async () => {
    const model = KEYS.outage.model;
    await page.locator(`[data-testid="key-tile"][data-model="${model}"] a`).first().click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(model);
    const url = new URL(page.url());
    expect(url.pathname).toBe('/key');
    expect(url.searchParams.get('model')).toBe(model);
    expect(url.searchParams.get('region')).toBe('us-east');
    const detail = await collector.get<{ evidence: string[]; verdict: string }>(`/api/key?${url.searchParams}`);
    await expect.poll(() => page.getByTestId('evidence').locator('li').allTextContents()).toEqual(detail.evidence);

    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(model);
    expect(await page.locator('.verdict-panel [data-verdict]').first().getAttribute('data-verdict')).toBe(detail.verdict);
  });

  it('draws the detail charts with data points on one time axis', async () => {
    await expect.poll(() => page.getByTestId('chart').count()).toBeGreaterThanOrEqual(8);
    for (const chart of ['errors', 'probe-success', 'open-share', 'latency', 'rejections']) {
      await expect.poll(async () => Math.max(0, ...(await pointsPerSeries(chart))), { message: chart }).toBeGreaterThan(10);
    }
    // One axis: every chart's plot spans the same horizontal pixels.
    const extents = await page.locator('[data-testid="chart"] .recharts-cartesian-grid').evaluateAll((grids) =>
      grids.map((g) => {
        const box = g.getBoundingClientRect();
        return `${Math.round(box.left)}-${Math.round(box.right)}`;
      }),
    );
    expect(new Set(extents).size).toBe(1);
    await page.screenshot({ path: artifact('dashboard-key-detail.png'), fullPage: true });
  });

  it('shows a line per service whose SDK forwarded requests unprotected, with its largest families', async () => {
    const res = await fetch(`${collector.url}/v1/telemetry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${collector.tokens.ingest}` },
      body: JSON.stringify({
        batch_id: `dash-passthrough-${process.pid}`, source: { service: 'batch-jobs', instance: 'pod-9' }, events: [],
        passthrough: [
          { host: 'generativelanguage.googleapis.com', path_family: '/v1beta/models/{model}:generateContent', method: 'POST', count: 40, why: 'no model API the SDK protects has this path' },
          { host: 'api.openai.com', path_family: '/v1/files', method: 'POST', count: 2 },
        ],
      }),
    });
    expect(res.status, await res.text()).toBe(200);
    await page.goto(`${collector.url}/?range=1h`);
    const notice = page.getByTestId('passthrough');
    await expect.poll(() => notice.count()).toBe(1);
    const line = notice.locator('li[data-service="batch-jobs"]');
    expect(await line.textContent()).toContain('batch-jobs: 42 requests with no breaker, retry, fallback or key');
    expect(await line.locator('code').allTextContents()).toEqual([
      'POST generativelanguage.googleapis.com/v1beta/models/{model}:generateContent',
      'POST api.openai.com/v1/files',
    ]);
    expect(await line.textContent()).toContain('(no model API the SDK protects has this path)');
    // The keys are still listed beside it.
    await expect.poll(() => page.getByTestId('key-tile').count()).toBe(4);
    await page.screenshot({ path: artifact('dashboard-board-passthrough.png'), fullPage: true });
  });
});
