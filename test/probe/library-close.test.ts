/**
 * The prober as a library and the telemetry sender it shares with the SDK settle at the top
 * level of an ES module: `await prober.stop()`, `await requests.stop()` and `await
 * sender.close()` as a script's last awaits print the line after them and exit 0 — never 13
 * ("unsettled top-level await") — whether the collector answers, is down, or hangs.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCollector } from './collector.ts';
import { API_KEY } from './helpers.ts';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { builtEntry, runModule } from '../support/run-module.ts';

/** Probes one target on demand through the library, pushes the event with the protocol's sender, then stops everything. */
const script = (closeMs: number) => `
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Prober, ProbeRequestClient, loadConfig } from ${JSON.stringify(builtEntry('probe'))};
import { TelemetrySender } from ${JSON.stringify(builtEntry('protocol'))};
const [collector, token, base, apiKey] = process.argv.slice(2);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const key = { provider: 'openai', endpoint: 'chat', model: 'gpt-4o-mini' };
const file = join(tmpdir(), 'bbx-library-close-' + process.pid + '.json');
writeFileSync(file, JSON.stringify({ targets: [{ name: 'chat', key, kind: 'openai-chat', base_url: base, api_key_env: 'K', request: {},
  latency_ceiling_ms: 10000, timeouts: { connect_ms: 5000, first_byte_ms: 10000, total_ms: 20000 } }] }));
const config = await loadConfig(file, { location: 'ci' });
const sender = new TelemetrySender({ url: collector, token, source: { service: 'probe', instance: 'ci', sdk: 'library-test' }, requestTimeoutMs: ${closeMs} });
const prober = new Prober({ config, apiKeys: new Map([['K', apiKey]]), sink: (e) => sender.enqueue([e]), logger: quiet });
const requests = new ProbeRequestClient({ url: collector, token, location: 'ci', logger: quiet, onRequests: () => undefined });
prober.start();
requests.start();
const results = await prober.fireOnDemand(key);
await requests.stop();
await prober.stop();
const began = Date.now();
const left = await sender.close(${closeMs});
console.log('after', JSON.stringify({ results: results.map((r) => r.kind), left, sent: sender.stats().sent, closeMs: Date.now() - began }));
`;

const afterLine = (stdout: string) => {
  const line = stdout.split('\n').find((l) => l.startsWith('after '));
  return line ? (JSON.parse(line.slice(6)) as { results: string[]; left: number; sent: number; closeMs: number }) : undefined;
};

describe('the prober library and the telemetry sender at the top level of an ES module', { timeout: 90_000 }, () => {
  let fake: FakeProvider;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  beforeAll(async () => {
    fake = await startFakeProvider({ apiKeys: [API_KEY] });
    collector = await startCollector();
  });
  afterAll(async () => {
    await collector?.stop();
    await fake?.close();
  });

  it('stops the prober and its request poll, and closes the sender once the collector stored the probe', async () => {
    const r = await runModule(script(5_000), [collector.url, collector.ingestToken, fake.openaiBaseUrl, API_KEY]);
    expect(r.stderr).not.toMatch(/unsettled top-level await/);
    expect(r.code).toBe(0);
    const after = afterLine(r.stdout);
    expect(after).toMatchObject({ left: 0, sent: 1 });
    expect(collector.rows('SELECT COUNT(*) AS n FROM probe_events')).toEqual([{ n: 1 }]);
  });

  it('settles at the deadline when the collector accepts connections and never answers', async () => {
    const held: Socket[] = [];
    const hung: Server = createServer((s) => void held.push(s));
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hung.address() as { port: number }).port}`;
      const r = await runModule(script(1_500), [url, 'tok', fake.openaiBaseUrl, API_KEY]);
      expect(r.stderr).not.toMatch(/unsettled top-level await/);
      expect(r.code).toBe(0);
      const after = afterLine(r.stdout)!;
      expect(after.left).toBe(1);
      expect(after.closeMs).toBeGreaterThanOrEqual(1_400);
      expect(after.closeMs).toBeLessThan(15_000);
    } finally {
      for (const s of held) s.destroy();
      hung.close();
    }
  });
});
