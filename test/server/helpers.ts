import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { buildApp, loggerOptions } from '../../server/app.ts';
import { loadConfig } from '../../server/config/load.ts';
import type { Config } from '../../server/config/schema.ts';
import type { BreakerKey, TelemetryBatch, TelemetryEvent, WindowEvent } from '@breakerbox/protocol';
import { sqlOf } from '../support/sql.ts';

/** A fresh temp folder, removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'bbx-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Config for a test collector on a temp database file. */
export function testConfig(dbPath: string, env: Record<string, string> = {}): Config {
  return loadConfig({ env: { BREAKERBOX_DB: dbPath, BREAKERBOX_PORT: '0', BREAKERBOX_LOG_LEVEL: 'silent', BREAKERBOX_SUSPICION_INTERVAL_S: '0', ...env } });
}

/** A collector app on a temp file with three tokens: ingest-only, read-only and admin. */
export async function makeApp(config?: Partial<Config>) {
  const tmp = tempDir();
  const app: FastifyInstance = await buildApp({ config: { ...testConfig(join(tmp.dir, 'bbx.db')), ...config }, logger: false });
  await app.ready();
  const ingest = (await app.storage.tokens.create('ingest', ['ingest'])).secret;
  const read = (await app.storage.tokens.create('read', ['read'])).secret;
  const admin = (await app.storage.tokens.create('admin', ['admin'])).secret;
  return {
    app,
    tokens: { ingest, read, admin },
    dbPath: join(tmp.dir, 'bbx.db'),
    async close() {
      await app.close();
      tmp.cleanup();
    },
  };
}

/** A collector app whose log lines (the production logger settings at `level`) are kept as text. */
export async function appWithLogs(level: string) {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += chunk;
      done();
    },
  });
  const tmp = tempDir();
  const app: FastifyInstance = await buildApp({ config: testConfig(join(tmp.dir, 'db')), logger: { ...(loggerOptions(level) as object), stream } });
  return {
    app,
    logs: () => text,
    async close() {
      await app.close();
      tmp.cleanup();
    },
  };
}

export const KEY: BreakerKey = { provider: 'together', endpoint: 'chat', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', region: 'us-east' };

let seq = 0;
/** A unique batch id. */
export const batchId = () => `batch-${process.pid}-${Date.now()}-${seq++}`;

/** A valid window event ending `agoMs` before now. */
export function windowEvent(overrides: Partial<WindowEvent> = {}, agoMs = 5_000): WindowEvent {
  const end = Date.now() - agoMs;
  return {
    type: 'window',
    start: end - 10_000,
    end,
    key: KEY,
    calls: 120,
    ok: 100,
    slow: 5,
    errors: { server: 12, rate_limit: 3 },
    rejected: 2,
    short_circuited: 0,
    retries: 8,
    cold_excluded: 1,
    half_open: { ok: 0, failed: 0 },
    latency_ms: { bounds: [100, 500, 1000], counts: [40, 60, 15, 5] },
    ttft_ms: { bounds: [100, 500], counts: [70, 40, 10] },
    input_tokens: 12_000,
    output_tokens: 3_400,
    cost_usd: 0.42,
    ...overrides,
  };
}

/** One valid event of each type. */
export function oneOfEach(): TelemetryEvent[] {
  const ts = Date.now() - 1_000;
  return [
    windowEvent(),
    { type: 'transition', ts, key: KEY, from: 'closed', to: 'open', reason: 'error_rate', cooldown_ms: 30_000, attempt: 1, rates: { error: 0.6, slow: 0.1 } },
    {
      type: 'tasks', start: ts - 10_000, end: ts, operation: 'draft-reply', completed: 40, failed: 2, degraded: 1, attempts: 47,
      cost_usd: 1.25, levels: { '0': 35, '1': 4, '4': 1 }, fallback: { invoked: 5, failed: 1 },
    },
    {
      type: 'config', ts, key: KEY, settings: { latency_ceiling_ms: 8000, max_concurrent: 20, error_threshold: 0.5 },
      fallbacks: [{ provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' }], warnings: [],
    },
    { type: 'probe', ts, key: KEY, location: 'eu-west', outcome: 'error', error_class: 'server', status: 503, latency_ms: { connect: 12, ttfb: 80, total: 81 } },
  ];
}

/** A batch envelope around `events`. */
export function batch(events: TelemetryEvent[], source = { service: 'ticket-drafts', instance: 'pod-7' }): TelemetryBatch {
  return { batch_id: batchId(), source: { ...source, sdk: 'breakerbox-js/0.1.0' }, events };
}

/** Counts rows in every raw and rollup table: "nothing stored" means all zero. */
export function rowCounts(app: FastifyInstance): Record<string, number> {
  const tables = ['batches', 'keys', 'window_events', 'transition_events', 'task_events', 'config_events', 'probe_events', 'key_minutes', 'task_minutes', 'probe_minutes'];
  return Object.fromEntries(tables.map((t) => [t, (sqlOf(app).prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n]));
}
