/**
 * The key page shows its canary's wrong answers (issue 39) on the verdict strip's time axis in a
 * real browser: each run of probe-series buckets holding `wrong_answer` probes is marked where
 * and as long as it happened, and listed in words with how many of how many probes, per location.
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

/** A percentage property (`left`, `width`) of an inline style. */
const percent = (style: string | null, prop: string) => parseFloat(new RegExp(`(?:^|;)\\s*${prop}:\\s*([\\d.]+)%`).exec(style ?? '')?.[1] ?? 'NaN');

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
  it('marks each run of wrong answers where and as long as it happened and lists it with its counts per location', async () => {
    const q = new URLSearchParams({ provider: key.provider, endpoint: key.endpoint, model: key.model, range: '1h' });
    await page.goto(`${collector.url}/key?${q}`);
    const marks = page.locator('.timeline-strip .timeline-wrong');
    await expect.poll(() => marks.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const seen = await marks.evaluateAll((els) => els.map((el) => ({ style: el.getAttribute('style'), title: el.getAttribute('title')!, wrong: Number(el.getAttribute('data-wrong')) })));
    // Two runs, oldest first: us-east's odd answer 40 minutes before the end of the 1 h window
    // (about a third along), then eu-west's five consecutive wrong answers 14-10 minutes before it.
    expect(seen.map((m) => m.wrong)).toEqual([1, 5]);
    const [us, eu] = seen as [(typeof seen)[number], (typeof seen)[number]];
    expect(us.title).toMatch(/: canary answered wrongly 1 of 1 probes from us-east$/);
    expect(eu.title).toMatch(/: canary answered wrongly 5 of 5 probes from eu-west$/);
    expect(percent(us.style, 'left')).toBeGreaterThan(30);
    expect(percent(us.style, 'left')).toBeLessThan(36);
    expect(percent(eu.style, 'left')).toBeGreaterThan(74);
    expect(percent(eu.style, 'left')).toBeLessThan(80);
    // As wide as its five one-minute buckets: 5/60 of the axis.
    expect(percent(eu.style, 'width')).toBeCloseTo((5 / 60) * 100, 1);

    const list = await page.getByTestId('wrong-answers').locator('li').allTextContents();
    // The list says the same in words, newest first (the strip's marks are oldest first).
    expect(list).toEqual(seen.map((m) => m.title).reverse());
    await page.screenshot({ path: artifact('dashboard-wrong-answers.png'), fullPage: true });
  });
});
