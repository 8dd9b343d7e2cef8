/**
 * Probe on suspicion, end to end: the prober's command line (in-process) long-polls the real
 * collector, runs each probe asked of its location at once, marks it `trigger: 'suspicion'`,
 * prices it like any probe and pushes it without waiting for the flush interval; its
 * per-hour budget refuses the rest; `--check` prints the on-demand bound.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakerKey } from '@breakerbox/protocol';
import { main } from '../../probe/cli.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { transition } from '../verdicts/support.ts';
import { startCollector } from './collector.ts';
import { API_KEY, rawTarget } from './helpers.ts';

const MODEL = 'gpt-4o-mini';
const KEY: BreakerKey = { provider: 'openai', endpoint: 'chat', model: MODEL };

let dir: string;
let fake: FakeProvider;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bbx-probe-on-demand-'));
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function configFile(name: string, extra: Record<string, unknown> = {}): string {
  const file = join(dir, name);
  // Hourly and a 30 s flush: within the test, only the collector's requests make probes, and only the push kick sends them soon.
  const target = rawTarget(fake.openaiBaseUrl, MODEL, { interval: '1h', price: { input_per_mtok: 0.15, output_per_mtok: 0.6 } });
  writeFileSync(file, JSON.stringify({ collector: { flush_interval: '30s' }, targets: [target], ...extra }));
  return file;
}

const until = async (what: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** Runs the prober CLI of `location` until `stop()`; its stderr lines are kept. */
function runProber(file: string, location: string, env: Record<string, string>) {
  let signal: ((s: string) => void) | undefined;
  const err: string[] = [];
  const rc = main(['probe', '--config', file, '--location', location, '--log-level', 'warn'], {
    env: { PROBE_TEST_KEY: API_KEY, ...env },
    stdout: () => undefined,
    stderr: (l) => err.push(l),
    onSignal: (h) => {
      signal = h;
      return () => undefined;
    },
  });
  return { err, stop: async () => (signal?.('SIGTERM'), rc) };
}

async function setUp(collectorOptions: Parameters<typeof startCollector>[0], file: string) {
  const collector = await startCollector(collectorOptions);
  const env = { BREAKERBOX_TOKEN: collector.ingestToken, BREAKERBOX_URL: collector.url };
  // One warm probe first: a location covers the keys it probed lately.
  expect(await main(['probe', '--config', file, '--location', 'eu-west', '--once'], { env: { PROBE_TEST_KEY: API_KEY, ...env }, stdout: () => undefined, stderr: () => undefined, onSignal: () => () => undefined })).toBe(0);
  const prober = runProber(file, 'eu-west', env);
  // The client side degrades: a breaker open for 30 s.
  const res = await collector.app.inject({
    method: 'POST', url: '/v1/telemetry', headers: { authorization: `Bearer ${collector.ingestToken}` },
    payload: { batch_id: `od-${Date.now()}`, source: { service: 'ticket-drafts', instance: 'pod-1', sdk: 'test/0' }, events: [transition(KEY, Date.now() - 30_000, 'closed', 'open')] },
  });
  expect(res.statusCode).toBe(200);
  expect((await collector.app.suspicion.evaluate()).opened.map((s) => s.locations)).toEqual([['eu-west']]);
  const asked = () => collector.rows<{ outcome: string; location: string; cost_usd: number | null }>("SELECT outcome, location, cost_usd FROM probe_events WHERE trigger = 'suspicion' ORDER BY ts");
  return { collector, prober, asked };
}

describe('a prober asked for probes', () => {
  it('runs each request of its location at once and pushes it marked trigger suspicion, priced, counted in /api/probes', async () => {
    const file = configFile('default.json');
    const { collector, prober, asked } = await setUp({ suspicion: { interval_s: 0, burst_gap_s: 0.2 } }, file);
    try {
      await until(() => asked().length === 3);
      expect(asked().map((r) => [r.location, r.outcome])).toEqual([['eu-west', 'ok'], ['eu-west', 'ok'], ['eu-west', 'ok']]);
      for (const r of asked()) expect(r.cost_usd).toBeGreaterThan(0);
      const read = (await collector.app.storage.tokens.create('board', ['read'])).secret;
      const probes = (await collector.app.inject({ url: '/api/probes?window=15m', headers: { authorization: `Bearer ${read}` } })).json();
      expect(probes.locations.find((l: any) => l.location === 'eu-west').on_demand).toEqual({ requested: 3, delivered: 3, served: 3, pending: 0, expired: 0 });
      expect(await prober.stop()).toBe(0);
      expect(prober.err).toEqual([]);
    } finally {
      await prober.stop();
      await collector.close();
    }
  });

  it('refuses requests past its on_demand.max_per_hour and says so', async () => {
    const file = configFile('budget.json', { on_demand: { max_per_hour: 2 } });
    const { collector, prober, asked } = await setUp({ suspicion: { interval_s: 0, burst_gap_s: 0.2 } }, file);
    try {
      await until(() => collector.rows("SELECT id FROM probe_requests WHERE delivered_at IS NOT NULL").length === 3 && asked().length === 2);
      await until(() => prober.err.some((l) => l.includes('on-demand budget')));
      expect(asked()).toHaveLength(2);
    } finally {
      await prober.stop();
      await collector.close();
    }
  });

  it('--check prints the on-demand bound next to the daily cost', async () => {
    const out: string[] = [];
    const rc = await main(['probe', '--config', configFile('check.json', { on_demand: { max_per_hour: 12 } }), '--location', 'eu-west', '--check'], {
      env: { PROBE_TEST_KEY: API_KEY }, stdout: (l) => out.push(l), stderr: (l) => out.push(l), onSignal: () => () => undefined,
    });
    expect(rc).toBe(0);
    expect(out.join('\n')).toMatch(/on-demand probes \(probe on suspicion, asked by the collector\): at most 12 per hour from this location, at most \$[0-9.]+ per day if every one is used; counted in the daily cost cap/);
  });
});
