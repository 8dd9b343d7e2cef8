import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifact, ensureBuilt, launchBrowser, signIn } from './browser-harness.ts';
import { ingestIncident, KEYS, window } from './seed.ts';
import { startCollector, type TestCollector } from './server-harness.ts';

const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'bbx-lifecycle-'));
let browser: Browser;
let collector: TestCollector;
let page: Page;
/** Five days from now, as a calendar day: critical under the default 7-day threshold. */
const shutdown = new Date(Date.now() + 5 * DAY).toISOString().slice(0, 10);

beforeAll(async () => {
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({
    lifecycle: { retirements: [{ provider: KEYS.healthy.provider, model: 'gpt-4o-mini*', shutdown, successor: 'gpt-4.1-mini', link: 'https://example.test/deprecations' }] },
  }));
  [, collector, browser] = await Promise.all([ensureBuilt(), startCollector({ BREAKERBOX_CONFIG: config }), launchBrowser()]);
  await ingestIncident(collector);
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Lifecycle view in a real browser', () => {
  it('lists the models in use, the retiring one first with its date, days left, callers and successor, as the API gives them', async () => {
    await signIn(page, `${collector.url}/`, collector.tokens.read);
    await page.getByRole('link', { name: 'Lifecycle' }).click();
    await page.getByRole('heading', { name: /Lifecycle/ }).waitFor();
    const api = await collector.get<{ models: Array<{ model: string; services: string[]; days_left: number | null; status: string }> }>('/api/lifecycle');
    const rows = page.locator('[data-testid="lifecycle-model"]');
    await expect.poll(() => rows.count()).toBe(api.models.length);
    expect(api.models[0]).toMatchObject({ model: KEYS.healthy.model, status: 'critical' });

    const first = rows.first();
    expect(await first.getAttribute('data-status')).toBe('critical');
    expect(await first.locator('th').textContent()).toContain(KEYS.healthy.model);
    const cells = await first.locator('td').allTextContents();
    expect(cells[2]).toBe(api.models[0]!.services.join(', '));
    expect(cells[3]).toBe(shutdown);
    expect(cells[4]).toBe(`${api.models[0]!.days_left} days`);
    expect(cells[5]).toBe('retiring soon');
    expect(cells[6]).toBe('gpt-4.1-mini');
    // Models without a calendar entry are listed too, with no date.
    expect(await rows.nth(api.models.length - 1).getAttribute('data-status')).toBe('no_date');
    // The slot the shadow comparison panel mounts into is on the page.
    expect(await page.locator('[data-testid="shadow-comparison-slot"]').count()).toBe(1);
    await page.screenshot({ path: artifact('dashboard-lifecycle.png'), fullPage: true });
  });

  it("shows a sunset the provider announced in its headers for a model the calendar does not list", async () => {
    const now = Date.now();
    const sunsetAt = Math.floor(now / DAY) * DAY + 20 * DAY;
    const key = { ...KEYS.healthy, model: 'gpt-legacy-0613' };
    await collector.ingest([{ ...window(key, 1, now, { calls: 12 }), deprecation_signal: { responses: 12, sunset_at: sunsetAt } }]);
    await page.reload();
    const api = await collector.get<{ models: Array<{ model: string; provider_signal: { text: string } | null }> }>('/api/lifecycle');
    const text = api.models.find((m) => m.model === key.model)?.provider_signal?.text;
    expect(text).toBe(`sunset announced by the provider: ${new Date(sunsetAt).toISOString().slice(0, 10)}, seen on 12 responses`);
    const row = page.locator('[data-testid="lifecycle-model"]', { hasText: key.model });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getAttribute('data-status')).toBe('warning');
    const cells = await row.locator('td').allTextContents();
    expect(cells[3]).toBe(new Date(sunsetAt).toISOString().slice(0, 10));
    expect(cells[7]).toBe(`provider (Sunset header)${text}`);
    expect(await row.locator('[data-testid="provider-signal"]').textContent()).toBe(text);
  });
});
