/** What the collector must show after `runScenario`: the keys, counts, classes and latency the app saw. */
import { expect } from 'vitest';
import type { startCollector } from './collector.ts';
import { nonZero, type instrumentedApp } from './instrumented-app.ts';

type Collector = Awaited<ReturnType<typeof startCollector>>;

/** The verdict of one model over the last 15 minutes. */
export async function verdictOf(c: Collector, model: string): Promise<any> {
  const { verdicts } = await c.read<{ verdicts: any[] }>('/api/verdicts?window=15m');
  return verdicts.find((v) => v.key.model === model);
}

/** Checks the scenario's three keys against what the app saw. */
export async function expectScenario(
  c: Collector,
  app: ReturnType<typeof instrumentedApp>,
  models: { healthy: string; flaky: string; broke: string },
  service: string,
  /** False for instrumentations that end no span for a failed call: only what they emitted is expected. */
  failedSpans = true,
): Promise<void> {
  const { healthy, flaky, broke } = models;
  expect(app.seen.get(healthy)).toMatchObject({ calls: 6, ok: 6 });
  expect(app.seen.get(flaky)).toMatchObject({ calls: 10, ok: 4, statuses: Array(6).fill(503) });
  expect(app.seen.get(broke)).toMatchObject({ calls: 3, ok: 0, statuses: [429, 429, 429] });

  const h = await verdictOf(c, healthy);
  expect(h.key).toEqual({ provider: 'openai', endpoint: 'chat', model: healthy });
  expect(h.clients).toMatchObject({ calls: 6, ok: 6, failed: 0 });
  // Every healthy call took the fake's 300 ms and a little more: the 250..500 ms bucket, as the app measured.
  for (const ms of app.seen.get(healthy)!.latencies) expect(ms).toBeGreaterThan(250);
  expect(h.clients.latency_ms.p50).toBeGreaterThan(250);
  expect(h.clients.latency_ms.p50).toBeLessThanOrEqual(500);
  expect(h.clients.output_tokens).toBe(48); // the fake answers 8 tokens

  const f = await verdictOf(c, flaky);
  const b = await verdictOf(c, broke);
  if (failedSpans) {
    expect(f.clients).toMatchObject({ calls: 10, ok: 4, failed: 6 });
    expect(nonZero(f.clients.errors)).toEqual({ server: 6 });
    expect(b.clients).toMatchObject({ calls: 3, ok: 0, failed: 3 });
    expect(nonZero(b.clients.errors)).toEqual({ quota: 3 });
  } else {
    // The failed calls' spans never end, so they are never exported: the successes only.
    expect(f.clients).toMatchObject({ calls: 4, ok: 4, failed: 0 });
    expect(b).toBeUndefined();
  }

  const { keys } = await c.read<{ keys: any[] }>('/api/keys?window=15m');
  expect(keys.find((k) => k.key.model === healthy).services).toEqual([service]);
}
