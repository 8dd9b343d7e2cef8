import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifact, ensureBuilt, launchBrowser, signIn } from './browser-harness.ts';
import { ingestIncident } from './seed.ts';
import { startCollector, type TestCollector } from './server-harness.ts';

let browser: Browser;
let collector: TestCollector;

beforeAll(async () => {
  // Alerts evaluated every second, so the seeded outage fires within the test.
  const [, started, launched] = await Promise.all([ensureBuilt(), startCollector({ BREAKERBOX_ALERT_INTERVAL_S: '1' }), launchBrowser()]);
  collector = started;
  browser = launched;
  await ingestIncident(collector);
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

describe('silences in a real browser', () => {
  it('creates a silence from a firing alert and expires it', async () => {
    await expect
      .poll(async () => (await collector.get<{ alerts: unknown[] }>('/api/alerts?state=firing')).alerts.length, { timeout: 20_000, interval: 500 })
      .toBeGreaterThan(0);
    const context = await browser.newContext();
    const admin = await context.newPage();
    try {
      await signIn(admin, `${collector.url}/alerts`, collector.tokens.admin);
      const firing = admin.getByTestId('alerts-firing').getByTestId('alert').first();
      await firing.getByRole('button', { name: 'Silence…' }).click();
      const form = admin.getByTestId('silence-form');
      await form.getByLabel('Comment (required)').fill('browser test: provider incident INC-1');
      await form.getByRole('button', { name: 'Create silence' }).click();
      await expect.poll(() => admin.getByRole('status').textContent()).toContain('Silence created');

      const row = admin.getByTestId('silence').filter({ hasText: 'INC-1' });
      await expect.poll(() => row.getAttribute('data-state')).toBe('active');
      const created = (await collector.get<{ silences: { id: string; comment: string; state: string }[] }>('/api/silences')).silences.find((s) => s.comment.includes('INC-1'));
      expect(created?.state).toBe('active');

      // The silenced alert still shows, marked silenced.
      const fingerprint = await firing.getAttribute('data-fingerprint');
      await expect
        .poll(async () => (await collector.get<{ alerts: { silenced: boolean }[] }>(`/api/alerts?fingerprint=${fingerprint}`)).alerts[0]?.silenced, { timeout: 10_000 })
        .toBe(true);
      await admin.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
      await expect.poll(() => admin.locator(`[data-testid="alert"][data-fingerprint="${fingerprint}"]`).first().textContent()).toContain('silenced');
      await admin.screenshot({ path: artifact('dashboard-alerts.png'), fullPage: true });

      await row.getByRole('button', { name: 'Expire' }).click();
      await expect.poll(() => row.getAttribute('data-state')).toBe('expired');
      const after = (await collector.get<{ silences: { id: string; state: string }[] }>('/api/silences')).silences.find((s) => s.id === created!.id);
      expect(after?.state).toBe('expired');
    } finally {
      await context.close();
    }
  });
});
