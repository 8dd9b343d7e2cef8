/**
 * Wrong answers end to end (issue 39): the prober's `--once` runs a canary target against the
 * fake provider, pushes to a real collector (SQLite), and the collector stores and shows the
 * `wrong_answer` probes apart from transport failures — `/api/probes` (figures, last, recent
 * with the redacted excerpt and the served model), the key's probe figures and series, and
 * the `/metrics` probe counter — while no outage verdict rests on them. An older prober's
 * probe event, without the new fields, is still accepted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../probe/cli.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { keyQuery } from '../verdicts/support.ts';
import { startCollector } from './collector.ts';
import { API_KEY, rawTarget } from './helpers.ts';

let fake: FakeProvider;
let dir: string;
beforeAll(async () => {
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
  dir = mkdtempSync(join(tmpdir(), 'bbx-canary-e2e-'));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Figures { probes: number; ok: number; error: number; wrong_answer: number; success_share: number | null; status: string; recent: { failed: number } }
interface Result { outcome: string; answer_excerpt?: string; message?: string; model_served?: string; system_fingerprint?: string }

describe('wrong answers at the collector', () => {
  it('are stored, counted apart from transport failures, shown with their evidence, and make no outage', async () => {
    const model = 'gpt-4o-canary';
    const key = { provider: 'openai', endpoint: 'chat', model };
    const file = join(dir, 'probes.json');
    writeFileSync(file, JSON.stringify({ collector: { flush_interval: '200ms' }, targets: [rawTarget(fake.openaiBaseUrl, model, { key, canary: { word: 'OK' } })] }));
    const collector = await startCollector();
    try {
      const env = { PROBE_TEST_KEY: API_KEY, BREAKERBOX_TOKEN: collector.ingestToken, BREAKERBOX_URL: collector.url };
      const io = { env, stdout: () => undefined, stderr: () => undefined, onSignal: () => () => undefined };
      const once = () => main(['probe', '--config', file, '--location', 'eu-west', '--once'], io);
      fake.script(model, { kind: 'ok', text: 'OK' });
      expect(await once()).toBe(0);
      // The provider starts answering wrongly (and names another build), and echoes the key.
      fake.script(model, { kind: 'ok', text: `Banana ${API_KEY}`, servedModel: 'gpt-4o-2026-12-01', fingerprint: 'fp_swapped' }, { persistent: true });
      // Exit 1 as for any failed probe: a wrong answer is not ok.
      for (let i = 0; i < 4; i++) expect(await once()).toBe(1);
      fake.clear(model);

      const rows = collector.rows<{ outcome: string; answer_excerpt: string | null; model_served: string }>('SELECT outcome, answer_excerpt, model_served FROM probe_events WHERE cold = 0 ORDER BY ts');
      expect(rows.map((r) => r.outcome)).toEqual(['ok', 'wrong_answer', 'wrong_answer', 'wrong_answer', 'wrong_answer']);
      expect(rows[0]).toMatchObject({ answer_excerpt: null, model_served: model });
      expect(rows[1]).toMatchObject({ answer_excerpt: 'Banana [redacted]', model_served: 'gpt-4o-2026-12-01' });
      expect(collector.diskText()).not.toContain(API_KEY);

      const read = (await collector.app.storage.tokens.create('reader', ['read'])).secret;
      const get = async (url: string) => {
        const res = await collector.app.inject({ url, headers: { authorization: `Bearer ${read}` } });
        expect(res.statusCode, url).toBe(200);
        return res;
      };
      const view = (await get('/api/probes?window=15m')).json() as { locations: { location: string; targets: { figures: Figures; last: Result; recent: Result[] }[] }[] };
      const target = view.locations.find((l) => l.location === 'eu-west')!.targets[0]!;
      expect(target.figures).toMatchObject({ probes: 5, ok: 1, error: 0, wrong_answer: 4, success_share: 0.2, recent: { failed: 0 } });
      // No transport failure: the location's probe status is not failing.
      expect(target.figures.status).not.toBe('failing');
      expect(target.last).toMatchObject({
        outcome: 'wrong_answer', answer_excerpt: 'Banana [redacted]', model_served: 'gpt-4o-2026-12-01', system_fingerprint: 'fp_swapped',
        message: 'expected the word "OK", got another answer',
      });
      expect(target.recent.map((r) => r.outcome)).toEqual(['wrong_answer', 'wrong_answer', 'wrong_answer', 'wrong_answer', 'ok']);

      const detail = (await get(`/api/key?${keyQuery(key)}&window=15m`)).json() as { verdict: string; probes: Record<string, Figures>; probe_series: Record<string, { wrong_answer: number; failed: number }[]> };
      expect(detail.probes['eu-west']).toMatchObject({ wrong_answer: 4, error: 0 });
      expect(detail.probe_series['eu-west']!.reduce((n, p) => n + p.wrong_answer, 0)).toBe(4);
      expect(detail.probe_series['eu-west']!.reduce((n, p) => n + p.failed, 0)).toBe(0);
      expect(detail.verdict).not.toMatch(/outage/);

      const metrics = (await get('/metrics')).body;
      const series = (outcome: string) => new RegExp(`^breakerbox_probes_total\\{[^}]*model="${model}"[^}]*location="eu-west",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics)?.[1];
      expect([series('ok'), series('error'), series('wrong_answer')]).toEqual(['1', '0', '4']);
    } finally {
      await collector.close();
    }
  });

  it('accepts an older prober\'s probe event without the new fields, and refuses an unknown outcome', async () => {
    const collector = await startCollector();
    try {
      const key = { provider: 'openai', endpoint: 'chat', model: 'old-prober' };
      const post = (events: unknown[]) =>
        collector.app.inject({
          method: 'POST', url: '/v1/telemetry', headers: { authorization: `Bearer ${collector.ingestToken}`, 'content-type': 'application/json' },
          payload: { batch_id: `b-${events.length}-${JSON.stringify(events).length}`, source: { service: 'prober', instance: 'old' }, events },
        });
      const old = { type: 'probe', ts: Date.now(), key, location: 'eu-west', outcome: 'error', error_class: 'server', status: 500, latency_ms: { total: 120 } };
      const res = await post([old]);
      expect(res.statusCode).toBeLessThan(300);
      expect(collector.rows('SELECT outcome FROM probe_events')).toEqual([{ outcome: 'error' }]);
      const bad = await post([{ ...old, outcome: 'wrong' }]);
      expect(bad.statusCode).toBe(400);
      const long = await post([{ ...old, outcome: 'wrong_answer', answer_excerpt: 'x'.repeat(201) }]);
      expect(long.statusCode).toBe(400);
    } finally {
      await collector.close();
    }
  });
});
