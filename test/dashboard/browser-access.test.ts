import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, launchBrowser, signIn } from './browser-harness.ts';
import { startCollector, type TestCollector } from './server-harness.ts';

let browser: Browser;
beforeAll(async () => {
  await ensureBuilt();
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe('signing in and out in a real browser', () => {
  let collector: TestCollector;
  beforeAll(async () => {
    collector = await startCollector();
  });
  afterAll(async () => collector?.close());

  it('refuses a wrong token, signs in with a read token into an httpOnly cookie, and signs out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(collector.url);
    await page.getByLabel('Read token').fill('bbx_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('unknown or revoked');

    await page.getByLabel('Read token').fill(collector.tokens.read);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);

    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'bb_session', httpOnly: true, sameSite: 'Strict' });
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie + location.href);
    expect(stored).not.toContain(collector.tokens.read);
    expect(await page.evaluate(() => document.cookie)).toBe('');

    await page.reload();
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByLabel('Read token').count()).toBe(1);
    await page.reload();
    await expect.poll(() => page.getByLabel('Read token').count()).toBe(1);
    expect(await context.cookies()).toHaveLength(0);
    await context.close();
  });

  it('teaches how to send data when the collector has none, with its own URL in the snippets', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, collector.url, collector.tokens.read);
    const empty = page.getByTestId('empty-state');
    await expect.poll(() => empty.count()).toBe(1);
    const text = await empty.textContent();
    expect(text).toContain('No telemetry yet');
    expect(text).toContain(`url: ${collector.url}`);
    expect(text).toContain(`${collector.url}/v1/telemetry`);
    expect(text).toContain('--rights ingest');
    await context.close();
  });

  it('reports a server that stopped answering instead of showing a frozen board', async () => {
    const other = await startCollector();
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await signIn(page, other.url, other.tokens.read);
      await expect.poll(() => page.getByTestId('updated-at').count(), { timeout: 15_000 }).toBe(1);
      await other.server.close();
      // Coming back to the tab refreshes at once rather than waiting out the 10 s period.
      await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
      const banner = page.getByTestId('server-down');
      await expect.poll(() => banner.count(), { timeout: 15_000 }).toBe(1);
      expect(await banner.textContent()).toMatch(/stopped answering since \S+/);
      expect(await page.getByTestId('updated-at').count()).toBe(0);
    } finally {
      await context.close();
      await other.close();
    }
  });
});
