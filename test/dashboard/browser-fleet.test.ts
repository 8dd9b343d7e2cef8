/**
 * The key page's fleet panel in real Chromium against a real collector: an admin drains the
 * key fleet-wide through the form (the decision is listed as active, the form turns into the
 * release), releases it, and a required reason is enforced; a read-only session sees the
 * decisions but no form.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, startBrowserAndCollector } from './browser-harness.ts';
import { KEYS, window } from './seed.ts';
import type { TestCollector } from './server-harness.ts';

let browser: Browser;
let collector: TestCollector;
let page: Page;
const key = KEYS.outage;
const keyPage = () => `${collector.url}/key?${new URLSearchParams({ provider: key.provider, endpoint: key.endpoint, model: key.model, region: key.region, range: '1h' })}`;

beforeAll(async () => {
  ({ browser, collector } = await startBrowserAndCollector());
  await collector.ingest([window(key, 5, Date.now(), { calls: 20 })], { service: 'drafts', instance: 'pod-1' });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signIn(page, `${collector.url}/?range=1h`, collector.tokens.admin);
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

describe('fleet panel on the key page', () => {
  it('drains the key fleet-wide with a reason, lists the drain as active, then releases it', async () => {
    await page.goto(keyPage());
    const panel = page.getByTestId('fleet-panel');
    const drain = panel.getByRole('button', { name: 'Drain fleet-wide' });
    await drain.waitFor();
    // The reason is required: no drain without one.
    expect(await drain.isDisabled()).toBe(true);
    await panel.getByLabel('Reason (required)').fill('wrong answers since 14:02, INC-7');
    await drain.click();
    await panel.getByRole('button', { name: 'Release drain' }).waitFor({ timeout: 10_000 });
    expect(await panel.locator('tbody tr').first().textContent()).toContain('drain (breakers forced open by on-call) · active');
    expect(await panel.locator('tbody tr').first().textContent()).toContain('wrong answers since 14:02, INC-7');
    // The field was cleared after the drain went out.
    expect(await panel.getByLabel('Reason (required)').inputValue()).toBe('');

    await panel.getByLabel('Reason (required)').fill('provider fixed it');
    await panel.getByRole('button', { name: 'Release drain' }).click();
    await panel.getByRole('button', { name: 'Drain fleet-wide' }).waitFor({ timeout: 10_000 });
    const rows = await panel.locator('tbody tr').allTextContents();
    expect(rows[0]).toContain('release (drain ended)');
    expect(rows.find((r) => r.includes('drain (breakers'))).toContain('ended');
    expect(await panel.getByRole('alert').count()).toBe(0);
  });

  it('shows a read-only session the decisions and no drain form', async () => {
    const reader = await (await browser.newContext()).newPage();
    await signIn(reader, keyPage(), collector.tokens.read);
    const panel = reader.getByTestId('fleet-panel');
    await panel.locator('tbody tr').first().waitFor({ timeout: 10_000 });
    expect(await panel.getByRole('button', { name: 'Drain fleet-wide' }).count()).toBe(0);
    expect(await panel.getByText('needs a token with the admin right').count()).toBe(1);
  });
});
