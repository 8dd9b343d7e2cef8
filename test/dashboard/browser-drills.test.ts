/**
 * The Drills page in real Chromium against a real collector: an admin starts a drill from the
 * form (the command reaches a raw SSE feed of that service), the runs list shows a judged
 * report with its checks and the regression against the previous run; a read-only session
 * sees no Drills link and no form.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifact, launchBrowser, signIn } from './browser-harness.ts';
import { startCollector, type TestCollector } from './server-harness.ts';
import { CORRECT, MISCONFIGURED, drillFeed, stepEvents, type StepBehaviour } from '../drills/support.ts';

let browser: Browser;
let collector: TestCollector;
let page: Page;
let seq = 0;

/** Plays the SDK instance: answers each drill command on its feed with `behaviour`'s drill telemetry. */
async function instance(getBehaviour: () => Record<string, StepBehaviour>) {
  const feed = await drillFeed(collector.url, collector.tokens.ingest, 'drafts', (d) => {
    if (d.step_ms === 0) return;
    // Traffic in each drill's first 2 ms: inside its span even when the run is stopped a moment later.
    const events = d.kinds.flatMap((k, i) => stepEvents(d.issued_at + i * d.step_ms, 2, getBehaviour()[k]!));
    void fetch(`${collector.url}/v1/telemetry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${collector.tokens.ingest}` },
      body: JSON.stringify({ batch_id: `drill-ui-${seq++}`, source: { service: 'drafts', instance: 'pod-1' }, drill_id: d.id, events }),
    });
  });
  return { got: feed.drills, close: feed.close };
}

beforeAll(async () => {
  browser = await launchBrowser();
  // Reports written a second after a run ends, not the default 30 s.
  const dir = mkdtempSync(join(tmpdir(), 'bbx-drills-ui-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ drills: { grace_s: 1 } }));
  collector = await startCollector({ BREAKERBOX_CONFIG: join(dir, 'config.json') });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

describe('drills page in a real browser', () => {
  it('starts a drill from the form and shows the judged report with the regression against the previous run', async () => {
    let behaviour = CORRECT;
    const sdk = await instance(() => behaviour);
    // A first, passing run through the API, judged: the run the page's report is compared with.
    const start = async () => {
      const res = await fetch(`${collector.url}/api/drills`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${collector.tokens.admin}` },
        body: JSON.stringify({ service: 'drafts', kinds: ['primary_down'], step_s: 1 }),
      });
      expect(res.status).toBe(201);
      return (await res.json()).run.id as string;
    };
    const first = await start();
    const adminGet = async (id: string) => (await (await fetch(`${collector.url}/api/drills/${id}`, { headers: { authorization: `Bearer ${collector.tokens.admin}` } })).json()).run;
    await expect.poll(async () => (await adminGet(first)).status, { timeout: 60_000, interval: 250 }).toBe('done');

    behaviour = MISCONFIGURED;
    await signIn(page, `${collector.url}/drills`, collector.tokens.admin);
    await page.getByRole('link', { name: 'Drills' }).waitFor();
    const form = page.getByTestId('drill-form');
    await form.getByLabel('Service').fill('drafts');
    for (const k of ['rate_limit', 'slow_first_byte', 'truncated', 'field_renamed', 'auth_revoked']) await form.locator(`input[name="${k}"]`).uncheck();
    await form.getByLabel('Minutes each').fill('1');
    await form.getByRole('button', { name: 'Start drill' }).click();
    await page.getByRole('status').filter({ hasText: 'Drill started on drafts' }).waitFor();
    await expect.poll(() => sdk.got.length, { timeout: 15_000 }).toBe(2);
    expect(sdk.got[1]).toMatchObject({ service: 'drafts', kinds: ['primary_down'], step_ms: 60_000 });

    // Stop it from the page: it ends now and is judged on what the instance sent.
    const running = page.locator(`[data-testid="drill-run"][data-id="${sdk.got[1]!.id}"]`);
    await running.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => sdk.got.length, { timeout: 15_000 }).toBe(3);
    expect(sdk.got[2]).toMatchObject({ id: sdk.got[1]!.id, step_ms: 0 });
    await running.locator('[data-testid="drill-report"]').waitFor({ timeout: 90_000 });
    expect(await running.locator('[data-testid="drill-report"]').getAttribute('data-outcome')).toBe('fail');
    const result = running.locator('[data-testid="drill-result"][data-kind="primary_down"]');
    expect(await result.getAttribute('data-outcome')).toBe('fail');
    expect(await result.locator('[data-check="user_visible_failures"]').getAttribute('data-passed')).toBe('false');
    expect(await running.getByTestId('drill-regression').textContent()).toMatch(/primary_down\s*pass → fail/);
    await page.screenshot({ path: artifact('dashboard-drills.png'), fullPage: true });
    sdk.close();
    // Two runs judged end to end on real clocks: generous for a loaded machine, never a measured duration.
  }, 180_000);

  it('shows no Drills link or form to a read-only session', async () => {
    const reader = await (await browser.newContext()).newPage();
    await signIn(reader, `${collector.url}/drills`, collector.tokens.read);
    await reader.getByRole('heading', { name: 'Drills' }).waitFor();
    expect(await reader.getByRole('link', { name: 'Drills' }).count()).toBe(0);
    expect(await reader.getByTestId('drill-form').count()).toBe(0);
    expect(await reader.getByText('need a token with the admin right').count()).toBe(1);
  });
});
