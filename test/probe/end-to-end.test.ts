/**
 * The prober's command line against the fake provider and the real collector:
 * API keys and the ingest token never reach a log line or the database; two probers
 * in different locations probing one key are stored apart; SIGTERM finishes the probe
 * in flight, flushes, and exits 0.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../probe/cli.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startCollector } from './collector.ts';
import { API_KEY } from './helpers.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bbx-probe-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(name: string, body: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

function target(fake: FakeProvider, model: string, over: Record<string, unknown> = {}) {
  return {
    name: model,
    key: { provider: 'openai', endpoint: 'chat', model },
    kind: 'openai-chat',
    base_url: fake.openaiBaseUrl,
    api_key_env: 'E2E_OPENAI_KEY',
    latency_ceiling_ms: 2_000,
    timeouts: { connect_ms: 1_000, first_byte_ms: 1_000, total_ms: 2_000 },
    ...over,
  };
}

function io(env: Record<string, string>, onSignal: CliIo['onSignal'] = () => () => undefined) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = { env, stdout: (l) => out.push(l), stderr: (l) => err.push(l), onSignal };
  return { cli, out, err };
}

describe('secrets', () => {
  it('keeps the API key and the ingest token out of every log line and the database', async () => {
    const fake = await startFakeProvider({ apiKeys: [API_KEY] });
    const collector = await startCollector();
    try {
      // A provider that echoes the key in its error message, as some do.
      fake.script('echo', { kind: 'status', status: 401, message: `Incorrect API key provided: ${API_KEY}.` });
      fake.script('down', { kind: 'status', status: 503 });
      const file = writeConfig('secrets.json', {
        collector: { flush_interval: '200ms' },
        targets: [target(fake, 'fine', { request: { stream: true } }), target(fake, 'echo'), target(fake, 'down')],
      });
      const run = io({ E2E_OPENAI_KEY: API_KEY, BREAKERBOX_TOKEN: collector.ingestToken, BREAKERBOX_URL: collector.url });
      const rc = await main(['probe', '--config', file, '--location', 'eu-west', '--once', '--log-level', 'debug'], run.cli);
      expect(rc).toBe(1); // two of three probes failed
      const stored = collector.rows<{ outcome: string; error_class: string | null }>('SELECT outcome, error_class FROM probe_events ORDER BY id');
      expect(stored.map((r) => r.error_class).sort()).toEqual(['auth', 'server', null].sort());

      const logs = [...run.out, ...run.err].join('\n');
      const parsed = run.err.map((l) => JSON.parse(l) as Record<string, unknown>);
      const loud = parsed.slice(0, -1).filter((l) => l.level === 'error');
      expect(loud.map((l) => [l.target, String(l.msg).startsWith('MISCONFIGURED PROBE')])).toEqual([['echo', true]]);
      expect(parsed.at(-1)).toMatchObject({ level: 'error', msg: '--once: 2 of 3 probes failed (echo: auth, down: server): exit 1', delivered: 3 });
      expect(logs).toContain('[REDACTED]'); // the echoed key was there, and was removed
      expect(logs).not.toContain(API_KEY);
      expect(logs).not.toContain(collector.ingestToken);

      const tables = collector.rows<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
      const dump = JSON.stringify(tables.map((t) => collector.rows(`SELECT * FROM "${t.name}"`)));
      expect(dump).toContain('eu-west');
      expect(dump).not.toContain(API_KEY);
      expect(dump).not.toContain(collector.ingestToken);
      await collector.stop();
      const disk = collector.diskText();
      expect(disk).toContain('eu-west');
      expect(disk).not.toContain(API_KEY);
      expect(disk).not.toContain(collector.ingestToken);
    } finally {
      await collector.close();
      await fake.close();
    }
  });
});

describe('locations', () => {
  it('stores two probers of one key apart, so a regional failure shows as one location failing', async () => {
    // Two "regions" of one provider: healthy from Europe, failing from the US.
    const euRegion = await startFakeProvider({ apiKeys: [API_KEY] });
    const usRegion = await startFakeProvider({ apiKeys: [API_KEY] });
    usRegion.script('shared-model', { kind: 'status', status: 503 }, { persistent: true });
    const collector = await startCollector();
    try {
      const env = { E2E_OPENAI_KEY: API_KEY, BREAKERBOX_TOKEN: collector.ingestToken, BREAKERBOX_URL: collector.url };
      for (const [location, fake] of [['eu-west', euRegion], ['us-east', usRegion]] as const) {
        const file = writeConfig(`${location}.json`, { targets: [target(fake, 'shared-model')] });
        for (let i = 0; i < 2; i++) await main(['probe', '--config', file, '--location', location, '--once'], io(env).cli);
      }
      const perLocation = collector.rows<{ location: string; outcome: string; n: number; keys: number }>(
        'SELECT location, outcome, COUNT(*) AS n, COUNT(DISTINCT key_id) AS keys FROM probe_events GROUP BY location, outcome ORDER BY location',
      );
      expect(perLocation).toEqual([
        { location: 'eu-west', outcome: 'ok', n: 2, keys: 1 },
        { location: 'us-east', outcome: 'error', n: 2, keys: 1 },
      ]);
      const keyIds = collector.rows<{ key_id: number }>('SELECT DISTINCT key_id FROM probe_events');
      expect(keyIds).toHaveLength(1); // one key, two locations
      const minutes = collector.rows<{ location: string; ok: number; error: number }>(
        'SELECT location, SUM(ok) AS ok, SUM(error) AS error FROM probe_minutes GROUP BY location ORDER BY location',
      );
      expect(minutes).toEqual([
        { location: 'eu-west', ok: 2, error: 0 },
        { location: 'us-east', ok: 0, error: 2 },
      ]);
      // And the read API on-call uses reports them apart too.
      const read = (await collector.app.storage.tokens.create('reader', ['read'])).secret;
      const res = await collector.app.inject({ url: '/api/probes?window=15m', headers: { authorization: `Bearer ${read}` } });
      expect(res.statusCode).toBe(200);
      const last = (res.json().locations as { location: string; targets: { key: { model: string }; last: { outcome: string; status: number } }[] }[])
        .map((l) => ({ location: l.location, model: l.targets[0]!.key.model, outcome: l.targets[0]!.last.outcome, status: l.targets[0]!.last.status }))
        .sort((a, b) => a.location.localeCompare(b.location));
      expect(last).toEqual([
        { location: 'eu-west', model: 'shared-model', outcome: 'ok', status: 200 },
        { location: 'us-east', model: 'shared-model', outcome: 'error', status: 503 },
      ]);
    } finally {
      await collector.close();
      await euRegion.close();
      await usRegion.close();
    }
  });
});

describe('SIGTERM', () => {
  it('finishes the probe in flight, flushes every event to the collector, and exits 0', async () => {
    const fake = await startFakeProvider({ apiKeys: [API_KEY] });
    const collector = await startCollector();
    try {
      // Every answer takes 300 ms, so the signal arrives while a probe is in flight.
      fake.script('*', { kind: 'ok', latencyMs: 300 }, { persistent: true });
      const file = writeConfig('sigterm.json', {
        collector: { flush_interval: '10m' }, // nothing is flushed before the signal
        targets: [target(fake, 'steady', { interval: '1s', jitter: 0 })],
      });
      let signal: ((s: string) => void) | undefined;
      const run = io({ E2E_OPENAI_KEY: API_KEY, BREAKERBOX_TOKEN: collector.ingestToken, BREAKERBOX_URL: collector.url }, (h) => {
        signal = h;
        return () => (signal = undefined);
      });
      const exit = main(['probe', '--config', file, '--location', 'eu-west'], run.cli);
      await fake.waitForAttempts(2, 10_000);
      expect(signal).toBeTypeOf('function');
      signal?.('SIGTERM');
      expect(await exit).toBe(0);
      const attempts = fake.attempts.length;
      const stored = collector.rows<{ n: number }>('SELECT COUNT(*) AS n FROM probe_events')[0]?.n;
      expect(stored).toBe(attempts);
      expect(fake.attempts.every((a) => !a.clientAborted)).toBe(true);
      const stopped = run.err.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'stopped');
      expect(stopped).toMatchObject({ lost_events: 0, probes: attempts });
    } finally {
      await collector.close();
      await fake.close();
    }
  });
});

describe('command line', () => {
  it('--check prints the plan and sends nothing; a bad file exits 2 with one line per problem', async () => {
    const fake = await startFakeProvider({ apiKeys: [API_KEY] });
    try {
      const good = writeConfig('check.json', { targets: [target(fake, 'a', { price: { input_per_mtok: 1, output_per_mtok: 1 } })] });
      const ok = io({});
      expect(await main(['probe', '--config', good, '--location', 'eu-west', '--check'], ok.cli)).toBe(0);
      expect(ok.out.join('\n')).toContain('estimated daily cost');
      expect(ok.out.join('\n')).toContain('environment variable E2E_OPENAI_KEY is not set');
      expect(fake.attempts).toHaveLength(0);

      const bad = writeConfig('bad.json', { targets: [target(fake, 'a', { kind: 'nope', interval: '7s' })] });
      const no = io({});
      expect(await main(['probe', '--config', bad, '--location', 'eu-west', '--check'], no.cli)).toBe(2);
      expect(no.err.slice(1)).toEqual([
        '  target "a" (targets[0]): kind: unknown kind "nope" (known: openai-chat, openai-responses, openai-embeddings, anthropic-messages, bedrock-converse, http)',
        '  target "a" (targets[0]): interval: must divide the minute, hour or day evenly (e.g. 15s, 30s, 1m, 5m, 1h); use `cron` for anything else',
      ]);
    } finally {
      await fake.close();
    }
  });

  it('refuses to run without the API key, the collector or the token, and names what is missing', async () => {
    const file = writeConfig('missing.json', {
      targets: [{ ...target({ openaiBaseUrl: 'http://127.0.0.1:9/v1' } as FakeProvider, 'a') }],
    });
    const noKey = io({});
    expect(await main(['probe', '--config', file, '--location', 'x'], noKey.cli)).toBe(2);
    expect(noKey.err.join('\n')).toContain('environment variable E2E_OPENAI_KEY is not set');
    const noCollector = io({ E2E_OPENAI_KEY: API_KEY });
    expect(await main(['probe', '--config', file, '--location', 'x'], noCollector.cli)).toBe(2);
    expect(noCollector.err.join('\n')).toContain('no collector');
    const noToken = io({ E2E_OPENAI_KEY: API_KEY, BREAKERBOX_URL: 'http://127.0.0.1:9' });
    expect(await main(['probe', '--config', file, '--location', 'x'], noToken.cli)).toBe(2);
    expect(noToken.err.join('\n')).toContain('BREAKERBOX_TOKEN');
    expect(await main(['probe', '--bogus'], io({}).cli)).toBe(2);
  });
});
