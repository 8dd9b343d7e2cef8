/**
 * `await bb.close()` at the top level of an ES module settles — with the collector up, down
 * or hung — within its deadline, whatever else keeps (or does not keep) the event loop
 * alive: the lines after it run and the process exits 0, never 13 ("unsettled top-level
 * await"). Each script is its own process on the compiled SDK, calling the fake provider.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.ts';
import { startListeningCollector, type ListeningCollector } from '../support/listening-collector.ts';
import { builtEntry, runModule } from '../support/run-module.ts';
import { node20 } from '../packaging/scratch.ts';

/** One call through the SDK, then `await bb.close(timeout)` as the module's last await. */
const script = (closeArg: string) => `
import { createBreakerbox } from ${JSON.stringify(builtEntry('sdk'))};
const [collector, token, base] = process.argv.slice(2);
const bb = createBreakerbox({ telemetry: { url: collector, token, service: 'close-test' } });
const f = bb.fetch({ baseURL: base });
const res = await f(base + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }) });
await res.json();
const began = Date.now();
await bb.close(${closeArg});
console.log('after', JSON.stringify({ closeMs: Date.now() - began, stats: bb.telemetryStats() }));
`;

const afterLine = (stdout: string) => {
  const line = stdout.split('\n').find((l) => l.startsWith('after '));
  return line ? (JSON.parse(line.slice(6)) as { closeMs: number; stats: { sent: number; buffered: number } }) : undefined;
};

describe('await bb.close() at the top level of an ES module', { timeout: 90_000 }, () => {
  let fake: FakeProvider;
  let collector: ListeningCollector;
  beforeAll(async () => {
    fake = await startFakeProvider();
    collector = await startListeningCollector('close-settles');
  });
  afterAll(async () => {
    await collector?.close();
    await fake?.close();
  });

  // The SDK's engines promise Node.js 20.19: the same script runs on both.
  it.each([['this Node.js', () => process.execPath], ['Node.js 20', node20]] as const)('on %s returns once the final batch is acknowledged: "after" is printed, exit 0, the batch stored', async (_, node) => {
    const r = await runModule(script(''), [collector.url, collector.token, fake.openaiBaseUrl], 60_000, node());
    expect(r.stderr).not.toMatch(/unsettled top-level await/);
    expect(r.code).toBe(0);
    const after = afterLine(r.stdout);
    expect(after?.stats.sent).toBeGreaterThan(0);
    expect(after?.stats.buffered).toBe(0);
    const services = (await collector.app.inject({ method: 'GET', url: '/api/keys', headers: { authorization: `Bearer ${collector.readToken}` } })).json();
    expect(JSON.stringify(services)).toContain('gpt-4o-mini');
  });

  it('returns at once when nothing listens at the collector URL', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as { port: number }).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const r = await runModule(script('2_000'), [`http://127.0.0.1:${port}`, 'tok', fake.openaiBaseUrl]);
    expect(r.stderr).not.toMatch(/unsettled top-level await/);
    expect(r.code).toBe(0);
    expect(afterLine(r.stdout)?.stats.sent).toBe(0);
  });

  it('returns at its deadline when the collector accepts the connection and never answers', async () => {
    const held: Socket[] = [];
    const hung: Server = createServer((s) => void held.push(s));
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    try {
      const r = await runModule(script('1_500'), [`http://127.0.0.1:${(hung.address() as { port: number }).port}`, 'tok', fake.openaiBaseUrl]);
      expect(r.stderr).not.toMatch(/unsettled top-level await/);
      expect(r.code).toBe(0);
      const after = afterLine(r.stdout)!;
      // It waited for the answer up to the deadline it was given, and not much longer.
      expect(after.closeMs).toBeGreaterThanOrEqual(1_400);
      expect(after.closeMs).toBeLessThan(15_000);
      expect(after.stats.buffered).toBeGreaterThan(0);
    } finally {
      for (const s of held) s.destroy();
      hung.close();
    }
  });
});
