/**
 * The key page shows its canary's wrong answers (issue 39) on the verdict strip's time axis in a
 * real browser: each probe-series bucket holding `wrong_answer` probes is marked where it
 * happened and listed in words with how many of how many probes, per location.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeEvent } from '@breakerbox/protocol';
import { artifact, signIn, startBrowserAndCollector } from './browser-harness.ts';
import { KEYS, probe, window } from './seed.ts';
import type { TestCollector } from './server-harness.ts';

let browser: Browser;
let collector: TestCollector;
let page: Page;
const key = KEYS.healthy;

const leftOf = async (style: string | null) => parseFloat(style!.replace(/.*left:\s*([\d.]+)%.*/, '$1'));

beforeAll(async () => {
  ({ browser, collector } = await startBrowserAndCollector());
  const now = Date.now();
  const wrong = (e: ProbeEvent): ProbeEvent => ({ ...e, outcome: 'wrong_answer', answer_excerpt: '41', message: 'expected text matching /^42$/, got text that does not match' });
  // eu-west's canary answers wrongly 14 to 10 minutes ago (5 probes); us-east has one odd wrong answer 40 minutes ago.
  const eu = Array.from({ length: 60 }, (_, i) => (i >= 10 && i <= 14 ? wrong(probe(key, i, now, 'eu-west', true)) : probe(key, i, now, 'eu-west', true)));
  const us = Array.from({ length: 60 }, (_, i) => (i === 40 ? wrong(probe(key, i, now, 'us-east', true)) : probe(key, i, now, 'us-east', true)));
  await collector.ingest([...eu, ...us], { service: 'prober', instance: 'p' });
  await collector.ingest(Array.from({ length: 60 }, (_, i) => window(key, i, now, { calls: 20 })));
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  await signIn(page, `${collector.url}/?range=1h`, collector.tokens.read);
});
afterAll(async () => {
  await browser?.close();
  await collector?.close();
});

describe('canary wrong answers on the key page', () => {
  it('marks each bucket with wrong answers where it happened and lists it with its counts per location', async () => {
    const q = new URLSearchParams({ provider: key.provider, endpoint: key.endpoint, model: key.model, range: '1h' });
    await page.goto(`${collector.url}/key?${q}`);
    const marks = page.locator('.timeline-strip .timeline-wrong');
    await expect.poll(() => marks.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const seen = await marks.evaluateAll((els) => els.map((el) => ({ style: el.getAttribute('style'), title: el.getAttribute('title')!, wrong: Number(el.getAttribute('data-wrong')) })));
    const eu = seen.filter((m) => m.title.includes('from eu-west'));
    const us = seen.filter((m) => m.title.includes('from us-east'));
    // Every wrong answer is on the strip once, and no other bucket is marked.
    expect(eu.reduce((n, m) => n + m.wrong, 0)).toBe(5);
    expect(us.reduce((n, m) => n + m.wrong, 0)).toBe(1);
    expect(eu.length + us.length).toBe(seen.length);
    // On the axis of a 1 h window: eu-west's 14-10 minutes before the end (77-83 %), us-east's 40 minutes before it (about a third).
    for (const m of eu) {
      expect(await leftOf(m.style)).toBeGreaterThan(74);
      expect(await leftOf(m.style)).toBeLessThan(85);
    }
    expect(us).toHaveLength(1);
    expect(await leftOf(us[0]!.style)).toBeGreaterThan(30);
    expect(await leftOf(us[0]!.style)).toBeLessThan(36);
    expect(us[0]!.title).toMatch(/: canary answered wrongly 1 of 1 probes from us-east$/);

    const list = await page.getByTestId('wrong-answers').locator('li').allTextContents();
    // The list says the same in words, newest first (the strip's marks are oldest first).
    expect(list).toEqual(seen.map((m) => m.title).reverse());
    expect(list[list.length - 1]).toBe(us[0]!.title);
    await page.screenshot({ path: artifact('dashboard-wrong-answers.png'), fullPage: true });
  });
});
