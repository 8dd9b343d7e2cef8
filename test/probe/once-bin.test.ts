/**
 * `--once` as a user runs it: the real `breakerbox probe` and `breakerbox-probe` processes
 * (the compiled packages the global setup builds) against the shared fake provider and a
 * real collector. Exit 0 when every target was probed ok and its events delivered, 1
 * otherwise, and the last line says which; never exit 13 (a final push left unsettled).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector } from './collector.ts';
import { API_KEY } from './helpers.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BINS = {
  'breakerbox probe': [join(ROOT, 'bin', 'breakerbox.js'), 'probe'],
  'breakerbox-probe': [join(ROOT, 'probe', 'dist', 'bin.js')],
} as const;

let dir: string;
let fake: FakeProvider;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bbx-probe-once-'));
  fake = await startFakeProvider({ apiKeys: [API_KEY] });
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

function target(name: string, kind: string, model: string, request: Record<string, unknown> = {}) {
  return {
    name,
    key: { provider: 'openai', endpoint: kind.replace('openai-', ''), model },
    kind,
    base_url: fake.openaiBaseUrl,
    api_key_env: 'ONCE_OPENAI_KEY',
    request,
    latency_ceiling_ms: 10_000,
    timeouts: { connect_ms: 5_000, first_byte_ms: 10_000, total_ms: 20_000 },
  };
}

/** Runs the bin to its end; resolves with its exit code and output lines. */
function run(bin: readonly string[], targets: unknown[], env: Record<string, string>, extra: string[] = []) {
  const file = join(dir, `once-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ targets }));
  const child = spawn(process.execPath, [...bin, '--config', file, '--location', 'ci', '--once', ...extra], {
    env: { PATH: process.env.PATH ?? '', ONCE_OPENAI_KEY: API_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise<{ code: number | null; lines: string[]; last: Record<string, unknown> }>((resolve) =>
    child.on('close', (code) => {
      const lines = out.trim().split('\n');
      resolve({ code, lines, last: JSON.parse(lines[lines.length - 1] ?? '{}') as Record<string, unknown> });
    }),
  );
}

/** A port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('--once, spawned', { timeout: 120_000 }, () => {
  for (const [label, bin] of Object.entries(BINS)) {
    it(`${label}: every kind probed ok and delivered exits 0 and says so on its last line`, async () => {
      const collector = await startCollector();
      try {
        const targets = [
          target('chat', 'openai-chat', 'gpt-4.1-mini', { stream: true }),
          target('reasoning', 'openai-chat', 'o4-mini'),
          target('responses', 'openai-responses', 'gpt-5-mini', { stream: true }),
          target('responses-json', 'openai-responses', 'gpt-4.1'),
          target('embeddings', 'openai-embeddings', 'text-embedding-3-small'),
        ];
        const r = await run(bin, targets, { BREAKERBOX_TOKEN: collector.ingestToken, BREAKERBOX_URL: collector.url });
        expect(r.code, r.lines.join('\n')).toBe(0);
        expect(r.last).toMatchObject({ level: 'info', msg: '--once: all 5 targets probed ok, 5 of 5 events delivered: exit 0', exit: 0 });
        const stored = collector.rows<{ outcome: string; n: number }>('SELECT outcome, COUNT(*) AS n FROM probe_events GROUP BY outcome');
        expect(stored).toEqual([{ outcome: 'ok', n: 5 }]);
      } finally {
        await collector.close();
      }
    });
  }

  it('a failed probe exits 1, names the target and its class on the last line, and is still delivered', async () => {
    const collector = await startCollector();
    try {
      // A Responses answer with status failed (error.code server_error), every time.
      fake.script('gpt-4.1-broken', { kind: 'stream_error', afterTokens: 0 }, { persistent: true });
      const targets = [target('fine', 'openai-responses', 'gpt-4.1'), target('broken', 'openai-responses', 'gpt-4.1-broken')];
      const r = await run(BINS['breakerbox-probe'], targets, { BREAKERBOX_TOKEN: collector.ingestToken, BREAKERBOX_URL: collector.url });
      expect(r.code).toBe(1);
      expect(r.last).toMatchObject({ level: 'error', msg: '--once: 1 of 2 probes failed (broken: server): exit 1', delivered: 2, exit: 1 });
      expect(collector.rows<{ n: number }>('SELECT COUNT(*) AS n FROM probe_events')[0]?.n).toBe(2);
    } finally {
      await collector.close();
    }
  });

  it('events the collector never confirmed exit 1 after the shutdown timeout, saying how many were lost', async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const r = await run(BINS['breakerbox-probe'], [target('fine', 'openai-chat', 'gpt-4.1-mini')], { BREAKERBOX_TOKEN: 'bbx_unused_token_0123456789', BREAKERBOX_URL: url }, [
      '--shutdown-timeout', '1s',
    ]);
    expect(r.code).toBe(1);
    expect(r.last).toMatchObject({ level: 'error', msg: '--once: 1 of 1 events not delivered: exit 1', delivered: 0, exit: 1 });
  });
});
